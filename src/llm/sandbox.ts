import { basename, dirname, join } from 'node:path';
import { USER_LAYER_FOLDER } from '../config/memory-chain.js';
import {
  type Confinement,
  ConfinementError,
  createConfinement,
  type DenyContext,
  type RootSpec,
} from '../confine/index.js';
import { errnoCode } from '../util/errors.js';
import type { CanUseTool, ToolDecision } from './types.js';

/** What a tool call would do to the file system, judged from its name and input alone. */
export type ToolAccess =
  | { kind: 'read'; paths: string[]; memoryTool: boolean }
  | { kind: 'write'; paths: string[]; memoryTool: boolean }
  | { kind: 'deny'; message: string };

/** Tools that only read, and the input field naming what they read (absent: the base folder). */
const READ_FIELD: Record<string, string> = {
  read: 'path',
  list: 'path',
  grep: 'path',
  find: 'path',
  Read: 'file_path',
  Glob: 'path',
  Grep: 'path',
  LS: 'path',
  NotebookRead: 'notebook_path',
};
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
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function memoryToolAccess(input: unknown): ToolAccess {
  const command = field(input, 'command');
  if (command === 'view')
    return { kind: 'read', paths: [field(input, 'path') ?? '/memories'], memoryTool: true };
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
  const path = field(input, 'path');
  if (command === 'view')
    return path === undefined
      ? { kind: 'deny', message: 'Refused: view needs "path".' }
      : { kind: 'read', paths: [path], memoryTool: false };
  if (!['create', 'str_replace', 'insert', 'undo_edit'].includes(command ?? ''))
    return { kind: 'deny', message: `Refused: unknown editor command "${command}".` };
  if (path === undefined) return { kind: 'deny', message: `Refused: ${command} needs "path".` };
  return { kind: 'write', paths: [path], memoryTool: false };
}

/**
 * Classify a call. Unknown tools are refused: a sandbox that cannot tell what a tool does must
 * not guess that it is harmless. Shell access is refused outright (it can do anything).
 */
export function classifyToolCall(toolName: string, input: unknown): ToolAccess {
  const readField = READ_FIELD[toolName];
  if (readField !== undefined)
    return { kind: 'read', paths: [field(input, readField) ?? '.'], memoryTool: false };
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

/**
 * Anthropic memory-tool paths live under a virtual /memories root that maps onto a directory;
 * with a user layer, `/memories/user/...` maps onto the user directory instead (absolute).
 */
function memoryPath(path: string, userDir: string | undefined): string | undefined {
  if (path === '/memories' || path === '/memories/') return '.';
  if (!path.startsWith('/memories/')) return undefined;
  const rel = path.slice('/memories/'.length);
  if (userDir === undefined) return rel;
  if (rel === USER_LAYER_FOLDER || rel === `${USER_LAYER_FOLDER}/`) return userDir;
  return rel.startsWith(`${USER_LAYER_FOLDER}/`)
    ? join(userDir, rel.slice(USER_LAYER_FOLDER.length + 1))
    : rel;
}

export interface SandboxOptions {
  /** Where relative paths start (default: the sandbox directory, or the file's directory). */
  cwd?: string;
  /** Folders that may be read but not written (the project, session transcripts). */
  readRoots?: readonly string[];
  /**
   * A second writable memory directory, the user layer: absolute paths into it may be written,
   * judged by the same confinement as the first, and the memory tool reaches it as
   * `/memories/user/`.
   */
  userDir?: string;
  /** Who owns credentials here (default: this process's home and ENGRAM_HOME). */
  deny?: DenyContext;
  /**
   * The confinement to judge by: pass the one the tools use, so check and use are one thing.
   * Built from the other options when absent.
   */
  confinement?: Confinement;
}

/**
 * The decision before a tool runs, from the same confinement the tools use when they run: read
 * and write paths are walked physically, links out, `.git`, engram's own files and credentials
 * refused. A read of a file that does not exist is allowed (the tool says so itself).
 */
function sandbox(confined: Confinement, memory: Confinement, userDir?: string): CanUseTool {
  return async (toolName, input): Promise<ToolDecision> => {
    const access = classifyToolCall(toolName, input);
    if (access.kind === 'deny') return { behavior: 'deny', message: access.message };
    for (const raw of access.paths) {
      let path = raw;
      let judge = confined;
      if (access.memoryTool) {
        const mapped = memoryPath(raw, userDir);
        if (mapped === undefined)
          return {
            behavior: 'deny',
            message: `Refused: memory paths start with /memories (got ${raw}).`,
          };
        path = mapped;
        judge = memory;
      }
      try {
        await judge.check(path, access.kind);
      } catch (error) {
        if (error instanceof ConfinementError) return { behavior: 'deny', message: error.message };
        if (access.kind === 'read' && ['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? ''))
          continue;
        return {
          behavior: 'deny',
          message: `Refused: cannot resolve ${raw}: ${(error as Error).message}`,
        };
      }
    }
    return { behavior: 'allow' };
  };
}

function readOnly(paths: readonly string[] = []): RootSpec[] {
  return paths.map((path) => ({ path, write: false }));
}

/** The writable roots of a directory sandbox: the directory, then the user layer if any. */
function writable(dir: string, userDir: string | undefined): RootSpec[] {
  return [dir, ...(userDir === undefined || userDir === dir ? [] : [userDir])].map((path) => ({
    path,
    write: true,
  }));
}

/** The confinement of a directory sandbox: `dir` writable, `readRoots` readable. */
export function directoryConfinement(dir: string, options: SandboxOptions = {}): Confinement {
  return (
    options.confinement ??
    createConfinement({
      roots: [...writable(dir, options.userDir), ...readOnly(options.readRoots)],
      base: options.cwd ?? dir,
      ...(options.deny ? { deny: options.deny } : {}),
    })
  );
}

/**
 * Read inside `dir` and `readRoots`; create, write and edit only inside `dir` (and `userDir`,
 * when given); deletes, shell and
 * unknown tools refused. Used by extraction and consolidation. Relative paths (and the memory
 * tool's /memories) start at `dir`, unless `cwd` says otherwise.
 */
export function directorySandbox(dir: string, options: SandboxOptions = {}): CanUseTool {
  const memory = createConfinement({
    roots: writable(dir, options.userDir),
    base: dir,
    ...(options.deny ? { deny: options.deny } : {}),
  });
  return sandbox(directoryConfinement(dir, options), memory, options.userDir);
}

/** The confinement of a one-file sandbox: only `file` writable, its folder and `readRoots` readable. */
export function singleFileConfinement(file: string, options: SandboxOptions = {}): Confinement {
  return (
    options.confinement ??
    createConfinement({
      roots: [
        { path: dirname(file), write: true, only: [basename(file)] },
        ...readOnly(options.readRoots),
      ],
      base: options.cwd ?? dirname(file),
      ...(options.deny ? { deny: options.deny } : {}),
    })
  );
}

/** Read the file's folder and `readRoots`; write or edit exactly one file. Used by session notes. */
export function singleFileSandbox(file: string, options: SandboxOptions = {}): CanUseTool {
  const confined = singleFileConfinement(file, options);
  return sandbox(confined, confined);
}
