import { dirname, isAbsolute } from 'node:path';
import { isInside, resolvePhysical } from './physical-path.js';
import type { CanUseTool, ToolDecision } from './types.js';

/** What a tool call would do to the file system, judged from its name and input alone. */
export type ToolAccess =
  | { kind: 'read' }
  | { kind: 'write'; paths: string[]; memoryTool: boolean }
  | { kind: 'deny'; message: string };

/** Tools that only read: ours, Claude Code's. */
const READ_ONLY = new Set(['read', 'list', 'grep', 'Read', 'Glob', 'Grep', 'LS', 'NotebookRead']);
/** Tools that write one file, and the input field naming it. */
const WRITE_FIELD: Record<string, string> = {
  write: 'path',
  edit: 'path',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

const DELETE_REFUSED =
  'Refused: deleting is not allowed here. To retire a memory, rewrite it or mark it as revoked.';

function field(input: unknown, name: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' && !value.includes('\0') ? value : undefined;
}

function memoryToolAccess(input: unknown): ToolAccess {
  const command = field(input, 'command');
  if (command === 'view') return { kind: 'read' };
  if (command === 'delete') return { kind: 'deny', message: DELETE_REFUSED };
  const names = command === 'rename' ? ['old_path', 'new_path'] : ['path'];
  if (!['create', 'str_replace', 'insert', 'rename'].includes(command ?? ''))
    return { kind: 'deny', message: `Refused: unknown memory command "${command}".` };
  const paths = names.map((n) => field(input, n));
  if (paths.some((p) => p === undefined))
    return { kind: 'deny', message: `Refused: memory ${command} needs ${names.join(' and ')}.` };
  return { kind: 'write', paths: paths as string[], memoryTool: true };
}

/** Anthropic's text editor tool (by its API names): real paths, one command per call. */
const TEXT_EDITOR_TOOLS = new Set(['str_replace_based_edit_tool', 'str_replace_editor']);

function textEditorAccess(input: unknown): ToolAccess {
  const command = field(input, 'command');
  if (command === 'view') return { kind: 'read' };
  if (!['create', 'str_replace', 'insert', 'undo_edit'].includes(command ?? ''))
    return { kind: 'deny', message: `Refused: unknown editor command "${command}".` };
  const path = field(input, 'path');
  if (path === undefined) return { kind: 'deny', message: `Refused: ${command} needs "path".` };
  return { kind: 'write', paths: [path], memoryTool: false };
}

/**
 * Classify a call. Unknown tools are refused: a sandbox that cannot tell what a tool does must
 * not guess that it is harmless. Shell access is refused outright (it can do anything).
 */
export function classifyToolCall(toolName: string, input: unknown): ToolAccess {
  if (READ_ONLY.has(toolName)) return { kind: 'read' };
  if (toolName === 'memory') return memoryToolAccess(input);
  if (TEXT_EDITOR_TOOLS.has(toolName)) return textEditorAccess(input);
  const writeField = WRITE_FIELD[toolName];
  if (writeField !== undefined) {
    const path = field(input, writeField);
    if (path === undefined)
      return { kind: 'deny', message: `Refused: ${toolName} needs "${writeField}".` };
    return { kind: 'write', paths: [path], memoryTool: false };
  }
  if (/^(bash|shell|exec)/i.test(toolName))
    return {
      kind: 'deny',
      message: 'Refused: shell commands are not allowed in this background task.',
    };
  if (/delete|remove|unlink|^rm/i.test(toolName)) return { kind: 'deny', message: DELETE_REFUSED };
  return {
    kind: 'deny',
    message: `Refused: tool "${toolName}" is not allowed in this background task.`,
  };
}

/** Anthropic memory-tool paths live under a virtual /memories root that maps onto a directory. */
function memoryPath(path: string): string | undefined {
  if (path === '/memories') return '.';
  return path.startsWith('/memories/') ? path.slice('/memories/'.length) : undefined;
}

export interface SandboxOptions {
  /**
   * Where relative paths start (default: the sandbox directory, or the file's directory). The
   * memory tool's /memories always maps onto the sandbox directory (the file's, for one file).
   */
  cwd?: string;
}

type WriteCheck = (physical: string) => boolean;

function sandbox(
  base: string,
  memoryBase: string,
  check: () => Promise<WriteCheck>,
  outside: (p: string) => string,
): CanUseTool {
  let checker: Promise<WriteCheck> | undefined;
  return async (toolName, input): Promise<ToolDecision> => {
    const access = classifyToolCall(toolName, input);
    if (access.kind === 'read') return { behavior: 'allow' };
    if (access.kind === 'deny') return { behavior: 'deny', message: access.message };
    checker ??= check();
    const allowed = await checker;
    for (const raw of access.paths) {
      let path = raw;
      let from = base;
      if (access.memoryTool) {
        from = memoryBase;
        const mapped = memoryPath(raw);
        if (mapped === undefined)
          return {
            behavior: 'deny',
            message: `Refused: memory paths start with /memories (got ${raw}).`,
          };
        path = mapped;
      }
      let physical: string;
      try {
        physical = await resolvePhysical(path, from);
      } catch (error) {
        return {
          behavior: 'deny',
          message: `Refused: cannot resolve ${raw}: ${(error as Error).message}`,
        };
      }
      if (!allowed(physical)) return { behavior: 'deny', message: outside(raw) };
    }
    return { behavior: 'allow' };
  };
}

/**
 * Read anything; create, write and edit only inside `dir` (after following symlinks and `..`
 * physically, so neither can escape); deletes, shell and unknown tools refused. Used by
 * extraction and consolidation. Relative paths (and the memory tool's /memories) start at `dir`.
 */
export function directorySandbox(dir: string, options: SandboxOptions = {}): CanUseTool {
  return sandbox(
    options.cwd ?? dir,
    dir,
    async () => {
      const root = await resolvePhysical(dir, isAbsolute(dir) ? '/' : process.cwd());
      return (physical) => isInside(root, physical);
    },
    (raw) => `Refused: ${raw} is outside ${dir}. This task may only write files inside ${dir}.`,
  );
}

/** Read anything; write or edit exactly one file. Used by session notes. */
export function singleFileSandbox(file: string, options: SandboxOptions = {}): CanUseTool {
  return sandbox(
    options.cwd ?? dirname(file),
    dirname(file),
    async () => {
      const target = await resolvePhysical(file, isAbsolute(file) ? '/' : process.cwd());
      return (physical) => physical === target;
    },
    (raw) => `Refused: only ${file} may be edited in this task, not ${raw}.`,
  );
}
