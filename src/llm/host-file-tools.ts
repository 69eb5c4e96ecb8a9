/**
 * Executors for Claude Code's file tools (`Read`, `Write`, `Edit`, `MultiEdit`, `Grep`, `LS`), so a
 * fork of a conversation whose tool list is Claude Code's can act without the host supplying
 * executors. They translate the inputs (`file_path`, `replace_all`, `edits`) onto engram's file
 * tools; like those, they enforce nothing: the sandbox decides before they run.
 */
import { isAbsolute, resolve } from 'node:path';
import {
  type Confinement,
  ConfinementError,
  createConfinement,
  uniqueEdit,
} from '../confine/index.js';
import { PRIVATE_FILE_MODE } from '../util/file-modes.js';
import { createFileTools, editFailure, type FileToolsOptions } from './file-tools.js';
import type { ToolImplementation, ToolResultValue } from './types.js';

interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const fail = (content: string): ToolResultValue => ({ content, isError: true });

function record(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
}

/** Apply edits in order; any edit that does not match exactly (and uniquely) fails them all. */
function applyEdits(
  text: string,
  edits: readonly EditSpec[],
  path: string,
): string | ToolResultValue {
  if (edits.length === 0) return fail('no edits given.');
  let out = text;
  for (const [i, e] of edits.entries()) {
    const label = edits.length > 1 ? `edit ${i + 1}: ` : '';
    if (typeof e?.old_string !== 'string' || typeof e.new_string !== 'string')
      return fail(`${label}needs "old_string" and "new_string".`);
    const edit = uniqueEdit(out, e.old_string, e.new_string, {
      replaceAll: e.replace_all === true,
    });
    if (!edit.ok) {
      const why = editFailure(edit.kind, edit.lines.length, path).replace('use write', 'use Write');
      return fail(`${label}${edit.kind === 'ambiguous' ? `${why} Or set replace_all.` : why}`);
    }
    out = edit.text;
  }
  return out;
}

/** Claude Code's file tools over files under `root` (relative paths start there). */
export function createHostFileTools(
  root: string,
  options: FileToolsOptions = {},
): ToolImplementation[] {
  const confined: Confinement =
    options.confinement ?? createConfinement({ roots: [{ path: root, write: true }], base: root });
  const ours = new Map(
    createFileTools(root, { ...options, confinement: confined }).map((t) => [t.definition.name, t]),
  );
  const locked = options.writeLock ?? (<T>(fn: () => Promise<T>, _path: string) => fn());
  const delegate =
    (name: string, map: (input: Record<string, unknown>) => Record<string, unknown>) =>
    (input: unknown, context: { signal?: AbortSignal }) => {
      const tool = ours.get(name);
      if (!tool) return Promise.resolve(fail(`unknown tool ${name}`));
      return tool.execute(map(record(input)), context);
    };
  const editing =
    (toEdits: (input: Record<string, unknown>) => EditSpec[]) =>
    async (input: unknown): Promise<ToolResultValue> => {
      const fields = record(input);
      const path = fields.file_path;
      if (typeof path !== 'string' || path === '') return fail('needs "file_path".');
      const full = isAbsolute(path) ? path : resolve(confined.base, path);
      try {
        return await locked(async () => {
          const text = (await confined.readText(full)).text;
          const result = applyEdits(text, toEdits(fields), path);
          if (typeof result !== 'string') return result;
          await confined.writeText(full, result, { mode: PRIVATE_FILE_MODE });
          return { content: `Edited ${path}.` };
        }, full);
      } catch (error) {
        if (error instanceof ConfinementError) return fail(error.message);
        return fail(`Cannot edit ${path}: ${(error as Error).message}`);
      }
    };
  const tool = (name: string, execute: ToolImplementation['execute']): ToolImplementation => ({
    definition: { name, input_schema: { type: 'object' } },
    execute,
  });
  return [
    tool(
      'Read',
      delegate('read', (i) => ({ path: i.file_path, offset: i.offset, limit: i.limit })),
    ),
    tool(
      'Write',
      delegate('write', (i) => ({ path: i.file_path, content: i.content })),
    ),
    tool(
      'Edit',
      editing((i) => [i as unknown as EditSpec]),
    ),
    tool(
      'MultiEdit',
      editing((i) => (Array.isArray(i.edits) ? (i.edits as EditSpec[]) : [])),
    ),
    tool(
      'Grep',
      delegate('grep', (i) => ({ pattern: i.pattern, path: i.path })),
    ),
    tool(
      'LS',
      delegate('list', (i) => ({ path: i.path })),
    ),
  ];
}
