import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import { createFileTools, FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import { classifyToolCall, directorySandbox } from '../llm/sandbox.js';
import type {
  CanUseTool,
  ToolDefinition,
  ToolImplementation,
  ToolResultValue,
} from '../llm/types.js';
import { withMemoryLock } from '../memdir/dir-lock.js';
import { FIND_TOOL_DESCRIPTION, notAMemoryFileRefusal } from './prompts.js';

export const MAX_FIND_RESULTS = 200;
/** Folders walked by find; transcripts and memory trees are small, a home directory is not. */
const MAX_FIND_VISITED = 20_000;

export const FIND_TOOL_DEFINITION: ToolDefinition = {
  name: 'find',
  description: FIND_TOOL_DESCRIPTION,
  input_schema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Glob matched against paths below "path".' },
      path: {
        type: 'string',
        description: 'Folder to search, relative to the memory root or absolute.',
      },
    },
    required: ['name'],
  },
};

/** The tool list a consolidation run sends when it has no host conversation to share. */
export const DREAM_TOOL_DEFINITIONS: ToolDefinition[] = [
  ...FILE_TOOL_DEFINITIONS,
  FIND_TOOL_DEFINITION,
];

/** list, grep, read, write, edit (from the model layer) plus find, rooted at the memory directory. */
export function createDreamTools(memoryDir: string): ToolImplementation[] {
  // Consolidation rewrites MEMORY.md while sessions may save: the directory's lock, like every door.
  const writeLock = <T>(fn: () => Promise<T>) => withMemoryLock(memoryDir, fn);
  return [...createFileTools(memoryDir, { writeLock }), findTool(memoryDir)];
}

function findTool(root: string): ToolImplementation {
  return {
    definition: FIND_TOOL_DEFINITION,
    async execute(input): Promise<ToolResultValue> {
      const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<
        string,
        unknown
      >;
      if (typeof fields.name !== 'string' || fields.name === '')
        return { content: 'find needs "name" (a glob such as "*.jsonl").', isError: true };
      const raw = typeof fields.path === 'string' && fields.path !== '' ? fields.path : '.';
      const dir = isAbsolute(raw) ? raw : resolve(root, raw);
      const matches = picomatch(fields.name, { dot: false, basename: !fields.name.includes('/') });
      const found: Array<{ path: string; mtimeMs: number }> = [];
      try {
        await walk(dir, dir, matches, found, { visited: 0 });
      } catch (error) {
        const code = (error as { code?: string }).code;
        return {
          content: code === 'ENOENT' ? `No such folder: ${raw}` : `Cannot search ${raw}: ${code}`,
          isError: true,
        };
      }
      found.sort((a, b) => b.mtimeMs - a.mtimeMs);
      const shown = found.slice(0, MAX_FIND_RESULTS).map((f) => {
        const rel = relative(root, f.path);
        const name = rel.startsWith('..') || isAbsolute(rel) ? f.path : rel;
        return `${name}\t${new Date(f.mtimeMs).toISOString()}`;
      });
      if (shown.length === 0) return { content: 'No files found.' };
      const more =
        found.length > MAX_FIND_RESULTS
          ? `\n(${found.length - MAX_FIND_RESULTS} more not shown)`
          : '';
      return { content: shown.join('\n') + more };
    },
  };
}

async function walk(
  top: string,
  dir: string,
  matches: (path: string) => boolean,
  out: Array<{ path: string; mtimeMs: number }>,
  budget: { visited: number },
): Promise<void> {
  if (++budget.visited > MAX_FIND_VISITED) return;
  const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) await walk(top, full, matches, out, budget);
    else if (entry.isFile() && matches(relative(top, full).split('\\').join('/'))) {
      const info = await stat(full).catch(() => undefined);
      if (info) out.push({ path: full, mtimeMs: info.mtimeMs });
    }
  }
}

/**
 * The model layer's directory sandbox (read anywhere, write only inside the memory directory, no
 * deletes), narrowed for consolidation: writes must be markdown and never a dot file, because the
 * directory also holds engram's own lock whose mtime is the last consolidation time.
 */
export function dreamCanUseTool(memoryDir: string): CanUseTool {
  const inner = directorySandbox(memoryDir);
  return async (toolName, input) => {
    if (toolName === 'find') return { behavior: 'allow' };
    const decision = await inner(toolName, input);
    if (decision.behavior === 'deny') return decision;
    const access = classifyToolCall(toolName, input);
    if (access.kind !== 'write') return decision;
    for (const path of access.paths) {
      const name = basename(path);
      if (name.startsWith('.') || !name.endsWith('.md'))
        return { behavior: 'deny', message: notAMemoryFileRefusal(path) };
    }
    return decision;
  };
}
