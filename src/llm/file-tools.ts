import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  type Confinement,
  ConfinementError,
  createConfinement,
  listForWalk,
  uniqueEdit,
} from '../confine/index.js';
import { PRIVATE_FILE_MODE } from '../util/file-modes.js';
import { FILE_TOOL_DESCRIPTIONS } from './prompts.js';
import type { ToolDefinition, ToolImplementation, ToolResultValue } from './types.js';

/** Caps that keep one tool result from flooding the model's context. */
export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LIST_ENTRIES = 500;
export const MAX_GREP_MATCHES = 200;
const MAX_LINE_CHARS = 2000;

const pathProp = {
  type: 'string',
  description: 'File path, relative to the memory root or absolute.',
};

export const FILE_TOOL_DEFINITIONS: ToolDefinition[] = [
  {
    name: 'read',
    description: FILE_TOOL_DESCRIPTIONS.read,
    input_schema: {
      type: 'object',
      properties: {
        path: pathProp,
        offset: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1 },
      },
      required: ['path'],
    },
  },
  {
    name: 'write',
    description: FILE_TOOL_DESCRIPTIONS.write,
    input_schema: {
      type: 'object',
      properties: { path: pathProp, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  {
    name: 'edit',
    description: FILE_TOOL_DESCRIPTIONS.edit,
    input_schema: {
      type: 'object',
      properties: {
        path: pathProp,
        old_string: { type: 'string' },
        new_string: { type: 'string' },
      },
      required: ['path', 'old_string', 'new_string'],
    },
  },
  {
    name: 'list',
    description: FILE_TOOL_DESCRIPTIONS.list,
    input_schema: { type: 'object', properties: { path: pathProp } },
  },
  {
    name: 'grep',
    description: FILE_TOOL_DESCRIPTIONS.grep,
    input_schema: {
      type: 'object',
      properties: { pattern: { type: 'string' }, path: pathProp },
      required: ['pattern'],
    },
  },
];

const fail = (content: string): ToolResultValue => ({ content, isError: true });

function str(input: unknown, key: string): string | undefined {
  const v =
    typeof input === 'object' && input !== null
      ? (input as Record<string, unknown>)[key]
      : undefined;
  return typeof v === 'string' ? v : undefined;
}
function int(input: unknown, key: string): number | undefined {
  const v =
    typeof input === 'object' && input !== null
      ? (input as Record<string, unknown>)[key]
      : undefined;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/** Files below `dir` (absolute), in name order, links and `.git`/`node_modules` skipped. */
async function walkFiles(
  confined: Confinement,
  dir: string,
  out: string[],
  cap: number,
  named = true,
): Promise<void> {
  const entries = await listForWalk(confined, dir, named);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (out.length >= cap) return;
    if (e.name === '.git' || e.name === 'node_modules') continue;
    const full = join(dir, e.name);
    if (e.kind === 'dir') await walkFiles(confined, full, out, cap, false);
    else if (e.kind === 'file') out.push(full);
  }
}

function describeError(error: unknown, path: string): ToolResultValue {
  if (error instanceof ConfinementError) return fail(error.message);
  const code = (error as { code?: string }).code;
  if (code === 'ENOENT') return fail(`No such file or folder: ${path}`);
  if (code === 'EISDIR') return fail(`${path} is a folder; use list.`);
  if (code === 'ENOTDIR') return fail(`${path} is not a folder.`);
  return fail(`Cannot access ${path}: ${(error as Error).message}`);
}

export interface FileToolsOptions {
  /**
   * What the tools may touch (default: `root` alone, writable). Every read, write, edit, list and
   * grep goes through it, so what a sandbox checked is exactly what the tool uses.
   */
  confinement?: Confinement;
  /**
   * Wraps every write and every read-edit-write (the memory directory's lock, so a forked agent's
   * edit of MEMORY.md cannot lose a line a concurrent save added). It gets the absolute path
   * written, so tools that may write in more than one memory directory take that directory's
   * lock. Default: no lock.
   */
  writeLock?: <T>(fn: () => Promise<T>, path: string) => Promise<T>;
}

/**
 * Read, write, edit, list and grep over files under `root` (relative paths start there, absolute
 * allowed). Every call goes through the confinement: outside its roots, through a link out, into
 * `.git` or a credential file, nothing is read or written, whatever a sandbox said before.
 */
export function createFileTools(
  root: string,
  options: FileToolsOptions = {},
): ToolImplementation[] {
  const locked = options.writeLock ?? (<T>(fn: () => Promise<T>, _path: string) => fn());
  const confined =
    options.confinement ?? createConfinement({ roots: [{ path: root, write: true }], base: root });
  const base = confined.base;
  const at = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const shown = (full: string) => {
    const rel = relative(root, full);
    return rel.startsWith('..') || isAbsolute(rel) ? full : rel;
  };
  const byName: Record<string, (input: unknown, signal?: AbortSignal) => Promise<ToolResultValue>> =
    {
      async read(input) {
        const path = str(input, 'path');
        if (!path) return fail('read needs "path".');
        try {
          const lines = (await confined.readText(at(path))).text.split('\n');
          if (lines.at(-1) === '') lines.pop();
          const offset = int(input, 'offset') ?? 1;
          const limit = int(input, 'limit') ?? DEFAULT_READ_LIMIT;
          const slice = lines.slice(offset - 1, offset - 1 + limit);
          if (slice.length === 0)
            return {
              content:
                lines.length === 0
                  ? '(empty file)'
                  : `(no lines from ${offset}; the file has ${lines.length})`,
            };
          const width = String(offset + slice.length - 1).length;
          const body = slice
            .map(
              (l, i) =>
                `${String(offset + i).padStart(Math.max(6, width))}\t${l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l}`,
            )
            .join('\n');
          const rest = lines.length - (offset - 1 + slice.length);
          return {
            content:
              rest > 0
                ? `${body}\n(${rest} more lines; use offset ${offset + slice.length})`
                : body,
          };
        } catch (error) {
          return describeError(error, path);
        }
      },
      async write(input) {
        const path = str(input, 'path');
        const content = str(input, 'content');
        if (!path || content === undefined) return fail('write needs "path" and "content".');
        try {
          await locked(
            () => confined.writeText(at(path), content, { mode: PRIVATE_FILE_MODE }),
            at(path),
          );
          return { content: `Wrote ${shown(at(path))} (${content.length} characters).` };
        } catch (error) {
          return describeError(error, path);
        }
      },
      async edit(input) {
        const path = str(input, 'path');
        const oldString = str(input, 'old_string');
        const newString = str(input, 'new_string');
        if (!path || oldString === undefined || newString === undefined)
          return fail('edit needs "path", "old_string" and "new_string".');
        try {
          const outcome = await locked(async (): Promise<ToolResultValue | undefined> => {
            const text = (await confined.readText(at(path))).text;
            const edit = uniqueEdit(text, oldString, newString);
            if (!edit.ok) return fail(editFailure(edit.kind, edit.lines.length, path));
            await confined.writeText(at(path), edit.text, { mode: PRIVATE_FILE_MODE });
            return undefined;
          }, at(path));
          if (outcome) return outcome;
          return { content: `Edited ${shown(at(path))}.` };
        } catch (error) {
          return describeError(error, path);
        }
      },
      async list(input) {
        const path = str(input, 'path') ?? '.';
        try {
          const files: string[] = [];
          await walkFiles(confined, at(path), files, MAX_LIST_ENTRIES + 1);
          const more = files.length > MAX_LIST_ENTRIES ? `\n(more files not shown)` : '';
          return {
            content: files.length
              ? files.slice(0, MAX_LIST_ENTRIES).map(shown).join('\n') + more
              : '(no files)',
          };
        } catch (error) {
          return describeError(error, path);
        }
      },
      async grep(input, signal) {
        const pattern = str(input, 'pattern');
        if (!pattern) return fail('grep needs "pattern".');
        let regex: RegExp;
        try {
          regex = new RegExp(pattern);
        } catch (error) {
          return fail(`Invalid regular expression: ${(error as Error).message}`);
        }
        const path = str(input, 'path') ?? '.';
        try {
          const files: string[] = [];
          const found = await confined.info(at(path));
          if (!found) return fail(`No such file or folder: ${path}`);
          if (found.kind === 'dir') await walkFiles(confined, at(path), files, 5000);
          else files.push(at(path));
          const matches: string[] = [];
          for (const file of files) {
            if (signal?.aborted) return fail('grep was aborted.');
            // A file the confinement refuses (a credential, a hard link) is skipped, not shown.
            const text = await confined.readText(file).then(
              (r) => r.text,
              () => undefined,
            );
            if (text === undefined) continue;
            text.split('\n').forEach((line, i) => {
              if (matches.length <= MAX_GREP_MATCHES && regex.test(line))
                matches.push(`${shown(file)}:${i + 1}: ${line.slice(0, 300)}`);
            });
            if (matches.length > MAX_GREP_MATCHES) break;
          }
          if (matches.length > MAX_GREP_MATCHES)
            return {
              content: `${matches.slice(0, MAX_GREP_MATCHES).join('\n')}\n(more matches not shown)`,
            };
          return { content: matches.length ? matches.join('\n') : 'No matches.' };
        } catch (error) {
          return describeError(error, path);
        }
      },
    };
  return FILE_TOOL_DEFINITIONS.map((definition) => ({
    definition,
    execute: (input: unknown, context: { signal?: AbortSignal }) => {
      const run = byName[definition.name];
      return run
        ? run(input, context.signal)
        : Promise.resolve(fail(`unknown tool ${definition.name}`));
    },
  }));
}

/** The model-facing words for a failed exact-match edit (shared by every edit tool). */
export function editFailure(
  kind: 'empty' | 'missing' | 'ambiguous',
  count: number,
  path: string,
): string {
  if (kind === 'empty') return 'old_string is empty; use write to create a file.';
  if (kind === 'missing')
    return `old_string was not found in ${path}. Read the file and copy the passage exactly.`;
  return `old_string occurs ${count} times in ${path}; include more context so it is unique.`;
}
