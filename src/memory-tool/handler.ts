import { lstat, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { INDEX_FILE } from '../memdir/constants.js';
import { listMemoryFiles, readMemory } from '../memdir/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type Clock, type LegacyNow, resolveClock } from '../util/clock.js';
import { errnoCode } from '../util/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/file-modes.js';
import {
  editSnippet,
  formatFileView,
  formatListing,
  type ListingItem,
  MAX_FILE_LINES,
  occurrenceLines,
} from './format.js';
import { indexNote, isTopicFile, syncIndex, syncRenamedIndex } from './index-sync.js';
import { confinedRealPath, parseMemoryToolPath } from './paths.js';
import { revokeForDelete } from './revoke-delete.js';

const FILE_MODE = PRIVATE_FILE_MODE;
const DIR_MODE = PRIVATE_DIR_MODE;

export interface MemoryToolOptions {
  /** The engram memory directory that `/memories` maps onto. */
  memoryDir: string;
  /**
   * What `delete` does to a memory topic file: `revoke` (default) keeps it on disk marked
   * revoked, so extraction and consolidation never learn it again; `remove` deletes it.
   */
  onDelete?: 'revoke' | 'remove';
  /** Reason written into a revocation made by `delete`. */
  deleteReason?: string;
  clock?: Clock;
  /** @deprecated pass `clock`. */
  now?: LegacyNow;
}

/** A refusal or failure the model should read; the SDK's tool runner turns it into `is_error`. */
export class MemoryToolError extends Error {
  override readonly name = 'MemoryToolError';
}

interface Target {
  path: string;
  rel: string;
  /** The real location on disk (symlinks in existing ancestors resolved and confined). */
  real: string;
}

type Commands = Parameters<MemoryToolHandlers[keyof MemoryToolHandlers]>[0];
type Command<K extends Commands['command']> = Extract<Commands, { command: K }>;

/** The SDK's handler map, with every result a plain string. */
export type MemoryToolTextHandlers = {
  [K in keyof MemoryToolHandlers]: (command: Command<K>) => Promise<string>;
};

/**
 * Handlers for the Anthropic `memory_20250818` tool over an engram memory directory. Pass them to
 * `betaMemoryTool(...)` from `@anthropic-ai/sdk/helpers/beta/memory`. `.md` topic files keep
 * MEMORY.md in step (the two-step save), and deleting a memory revokes it unless configured.
 */
export function createMemoryToolHandlers(options: MemoryToolOptions): MemoryToolTextHandlers {
  const root = options.memoryDir;
  const clock = resolveClock(options);

  async function target(path: unknown): Promise<Target> {
    const parsed = parseMemoryToolPath(path);
    if (!parsed.ok) throw new MemoryToolError(parsed.error);
    await mkdir(root, { recursive: true, mode: DIR_MODE });
    const real = await confinedRealPath(root, join(root, parsed.rel));
    if (real === undefined) {
      // The official wording first (models and tests know it), then which path it was.
      throw new MemoryToolError(
        `Path would escape /memories directory via symlink: ${String(path)}`,
      );
    }
    return { path: String(path), rel: parsed.rel, real };
  }

  async function existingFile(t: Target): Promise<string> {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(t.real);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') {
        throw new MemoryToolError(
          `The path ${t.path} does not exist. Please provide a valid path.`,
        );
      }
      throw error;
    }
    if (!info.isFile()) throw new MemoryToolError(`The path ${t.path} is not a file.`);
    const content = await readFile(t.real, 'utf8');
    const lines = content.split('\n').length;
    if (lines > MAX_FILE_LINES) {
      throw new MemoryToolError(
        `File ${t.path} has too many lines (${lines}). Maximum is ${MAX_FILE_LINES.toLocaleString('en-US')} lines.`,
      );
    }
    return content;
  }

  async function listing(t: Target, dirSize: number): Promise<string> {
    const items: ListingItem[] = [];
    const collect = async (dir: string, rel: string, depth: number): Promise<void> => {
      const names = (await readdir(dir)).sort();
      for (const name of names) {
        if (name.startsWith('.') || name === 'node_modules') continue;
        const full = join(dir, name);
        const childRel = rel ? `${rel}/${name}` : name;
        if ((await confinedRealPath(root, full)) === undefined) continue;
        const info = await stat(full).catch(() => undefined);
        if (info?.isDirectory()) {
          items.push({ path: `${childRel}/`, size: info.size });
          if (depth < 2) await collect(full, childRel, depth + 1);
        } else if (info?.isFile()) {
          items.push({ path: childRel, size: info.size });
        }
      }
    };
    await collect(t.real, '', 1);
    return formatListing(t.path, dirSize, items);
  }

  async function view(command: Command<'view'>): Promise<string> {
    const t = await target(command.path);
    const info = await lstat(t.real).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') {
        throw new MemoryToolError(
          `The path ${t.path} does not exist. Please provide a valid path.`,
        );
      }
      throw error;
    });
    if (info.isDirectory()) return listing(t, info.size);
    const content = await existingFile(t);
    return formatFileView(t.path, content, command.view_range);
  }

  async function create(command: Command<'create'>): Promise<string> {
    const t = await target(command.path);
    if (t.rel === '') throw new MemoryToolError(`File ${t.path} already exists`);
    await mkdir(dirname(t.real), { recursive: true, mode: DIR_MODE });
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(t.real, 'wx', FILE_MODE);
      await handle.writeFile(command.file_text ?? '', 'utf8');
      await handle.sync();
    } catch (error) {
      if (errnoCode(error) === 'EEXIST' || errnoCode(error) === 'EISDIR') {
        throw new MemoryToolError(`File ${t.path} already exists${await revokedNote(t)}`);
      }
      throw error;
    } finally {
      await handle?.close().catch(() => {});
    }
    return `File created successfully at: ${t.path}${await afterWrite(t)}`;
  }

  /**
   * A model that just deleted a memory (a revocation: the file stays) and creates it again would
   * otherwise read a bare "already exists" about a file it believes gone.
   */
  async function revokedNote(t: Target): Promise<string> {
    if (!isTopicFile(t.rel)) return '';
    const status = await readMemory(root, t.rel).then(
      (doc) => doc.header.status,
      () => undefined,
    );
    return status === 'revoked'
      ? ': it holds a memory deleted earlier, kept on disk marked revoked so it is never learned again. Create the new memory under another file name.'
      : '';
  }

  /** The second step of the save: keep MEMORY.md in step with a written topic file. */
  async function afterWrite(t: Target): Promise<string> {
    if (!isTopicFile(t.rel)) return '';
    const outcome = await syncIndex(root, t.rel);
    return indexNote(outcome);
  }

  async function strReplace(command: Command<'str_replace'>): Promise<string> {
    const t = await target(command.path);
    const content = await existingFile(t);
    const oldStr = command.old_str ?? '';
    const lines = occurrenceLines(content, oldStr);
    if (lines.length === 0) {
      throw new MemoryToolError(
        `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${t.path}.`,
      );
    }
    if (lines.length > 1) {
      throw new MemoryToolError(
        `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(', ')}. Please ensure it is unique`,
      );
    }
    const newStr = command.new_str ?? '';
    const next = content.replace(oldStr, () => newStr);
    await writeFileAtomic(t.real, next, { mode: FILE_MODE });
    const snippet = editSnippet(next, lines[0]!, newStr.split('\n').length);
    return `${snippet}${await afterWrite(t)}`;
  }

  async function insert(command: Command<'insert'>): Promise<string> {
    const t = await target(command.path);
    const content = await existingFile(t);
    const lines = content.split('\n');
    const at = command.insert_line;
    if (!Number.isInteger(at) || at < 0 || at > lines.length) {
      throw new MemoryToolError(
        `Invalid \`insert_line\` parameter: ${at}. It should be within the range of lines of the file: [0, ${lines.length}]`,
      );
    }
    lines.splice(at, 0, (command.insert_text ?? '').replace(/\n$/, ''));
    await writeFileAtomic(t.real, lines.join('\n'), { mode: FILE_MODE });
    return `The file ${t.path} has been edited.${await afterWrite(t)}`;
  }

  async function remove(command: Command<'delete'>): Promise<string> {
    const t = await target(command.path);
    if (t.rel === '') throw new MemoryToolError('Cannot delete the /memories directory itself');
    if (t.rel === INDEX_FILE) {
      throw new MemoryToolError(
        `${t.path} is the index of this memory directory and is kept in step automatically; delete the memories it lists instead.`,
      );
    }
    const info = await lstat(t.real).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT')
        throw new MemoryToolError(`The path ${t.path} does not exist`);
      throw error;
    });
    if ((options.onDelete ?? 'revoke') === 'revoke') {
      const kept = await revokeForDelete(
        root,
        { rel: t.rel, real: t.real, isDirectory: info.isDirectory() },
        { reason: options.deleteReason ?? 'Deleted through the memory tool.', clock },
      );
      if (kept > 0) {
        return `Successfully deleted ${t.path} (${kept === 1 ? 'the memory is' : `${kept} memories are`} kept on disk marked revoked, so ${kept === 1 ? 'it is' : 'they are'} never recalled or learned again)`;
      }
    }
    const gone = info.isDirectory()
      ? (await listMemoryFiles(t.real)).map((f) => `${t.rel}/${f}`)
      : [t.rel];
    await rm(t.real, { recursive: true, force: false });
    await syncRenamedIndex(
      root,
      gone.filter(isTopicFile).map((from) => ({ from })),
    );
    return `Successfully deleted ${t.path}`;
  }

  async function renameCommand(command: Command<'rename'>): Promise<string> {
    const from = await target(command.old_path);
    const to = await target(command.new_path);
    if (from.rel === '') throw new MemoryToolError('Cannot rename the /memories directory itself');
    if (from.rel === INDEX_FILE || to.rel === INDEX_FILE) {
      throw new MemoryToolError(
        `${INDEX_FILE} is the index of this memory directory and cannot be renamed or replaced.`,
      );
    }
    if (
      to.rel === '' ||
      (await lstat(to.real).then(
        () => true,
        () => false,
      ))
    ) {
      throw new MemoryToolError(`The destination ${to.path} already exists`);
    }
    const info = await lstat(from.real).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT')
        throw new MemoryToolError(`The path ${from.path} does not exist`);
      throw error;
    });
    if (info.isDirectory() && (to.rel === from.rel || to.rel.startsWith(`${from.rel}/`))) {
      throw new MemoryToolError(`Cannot move ${from.path} into itself`);
    }
    const moved = info.isDirectory()
      ? (await listMemoryFiles(from.real)).map((f) => ({
          from: `${from.rel}/${f}`,
          to: `${to.rel}/${f}`,
        }))
      : [{ from: from.rel, to: to.rel }];
    await mkdir(dirname(to.real), { recursive: true, mode: DIR_MODE });
    await rename(from.real, to.real);
    await syncRenamedIndex(
      root,
      moved.filter((m) => isTopicFile(m.from) || isTopicFile(m.to)),
    );
    return `Successfully renamed ${from.path} to ${to.path}`;
  }

  return {
    view,
    create,
    str_replace: strReplace,
    insert,
    delete: remove,
    rename: renameCommand,
  };
}
