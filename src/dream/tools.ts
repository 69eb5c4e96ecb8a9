import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import { type Confinement, ConfinementError, listForWalk } from '../confine/index.js';
import { createFileTools, FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import { classifyToolCall, directoryConfinement, directorySandbox } from '../llm/sandbox.js';
import type {
  CanUseTool,
  ToolDefinition,
  ToolImplementation,
  ToolResultValue,
} from '../llm/types.js';
import { layerWriteLock } from '../memdir/dir-lock.js';
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

/** Folders a consolidation run may read besides memory: those holding the session records. */
export function dreamReadRoots(sessions: ReadonlyArray<{ path: string }>): string[] {
  return [...new Set(sessions.map((s) => dirname(s.path)))];
}

/**
 * The run's one confinement: write in the memory directory (and the user layer's, when given),
 * read them and the session folders.
 */
export function dreamConfinement(
  memoryDir: string,
  readRoots: readonly string[] = [],
  userDir?: string,
): Confinement {
  return directoryConfinement(memoryDir, {
    readRoots,
    ...(userDir === undefined ? {} : { userDir }),
  });
}

/** list, grep, read, write, edit (from the model layer) plus find, rooted at the memory directory. */
export function createDreamTools(
  memoryDir: string,
  confinement: Confinement = dreamConfinement(memoryDir),
  userDir?: string,
): ToolImplementation[] {
  // Consolidation rewrites MEMORY.md while sessions may save: the lock of the directory written
  // (the project's or the user layer's), like every door.
  const writeLock = layerWriteLock(memoryDir, userDir);
  return [
    ...createFileTools(memoryDir, { confinement, writeLock }),
    findTool(memoryDir, confinement),
  ];
}

function findTool(root: string, confined: Confinement): ToolImplementation {
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
        await walk(confined, dir, dir, matches, found, { visited: 0 });
      } catch (error) {
        if (error instanceof ConfinementError) return { content: error.message, isError: true };
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
  confined: Confinement,
  top: string,
  dir: string,
  matches: (path: string) => boolean,
  out: Array<{ path: string; mtimeMs: number }>,
  budget: { visited: number },
): Promise<void> {
  if (++budget.visited > MAX_FIND_VISITED) return;
  for (const entry of await listForWalk(confined, dir, dir === top)) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.kind === 'dir') await walk(confined, top, full, matches, out, budget);
    else if (entry.kind === 'file' && matches(relative(top, full).split('\\').join('/'))) {
      const info = await confined.info(full).catch(() => undefined);
      if (info) out.push({ path: full, mtimeMs: info.mtimeMs });
    }
  }
}

/**
 * The model layer's directory sandbox (read anywhere, write only inside the memory directory, no
 * deletes), narrowed for consolidation: writes must be markdown and never a dot file, because the
 * directory also holds engram's own lock whose mtime is the last consolidation time.
 */
export function dreamCanUseTool(
  memoryDir: string,
  readRoots: readonly string[] = [],
  userDir?: string,
): CanUseTool {
  const inner = directorySandbox(memoryDir, {
    readRoots,
    ...(userDir === undefined ? {} : { userDir }),
  });
  return async (toolName, input) => {
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
