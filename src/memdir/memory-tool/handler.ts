import { join } from 'node:path';
import type { MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { USER_LAYER_FOLDER } from '../../config/memory-chain.js';
import { ConfinementError, uniqueEdit } from '../../confine/index.js';
import { type Clock, type LegacyNow, resolveClock } from '../../util/clock.js';
import { errnoCode } from '../../util/errors.js';
import { PRIVATE_FILE_MODE } from '../../util/file-modes.js';
import { memoryDirConfinement } from '../confined.js';
import { INDEX_FILE } from '../constants.js';
import { checkMemoryFileName, listMemoryFiles, readMemory, withMemoryLock } from '../index.js';
import {
  editSnippet,
  formatFileView,
  formatListing,
  type ListingItem,
  MAX_FILE_LINES,
} from './format.js';
import { indexNote, isTopicFile, syncIndex, syncRenamedIndex } from './index-sync.js';
import { MEMORY_TOOL_ROOT, parseMemoryToolPath, toolPathOf } from './paths.js';
import { revokeForDelete } from './revoke-delete.js';

const FILE_MODE = PRIVATE_FILE_MODE;

export interface MemoryToolOptions {
  /** The engram memory directory that `/memories` maps onto. */
  memoryDir: string;
  /**
   * The user layer's directory: when given, `/memories/user/` maps onto it (listed by `view
   * /memories` as the folder `user/`) and every other path onto `memoryDir`, each with its own
   * confinement, lock and MEMORY.md. A folder named `user` in `memoryDir` is then not reachable
   * through this tool (the other doors still see it).
   */
  userDir?: string;
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
  /** Relative to the memory directory; '.' for the root. Every use goes through the confinement. */
  rel: string;
}

type Commands = Parameters<MemoryToolHandlers[keyof MemoryToolHandlers]>[0];
type Command<K extends Commands['command']> = Extract<Commands, { command: K }>;

/** The SDK's handler map, with every result a plain string. */
export type MemoryToolTextHandlers = {
  [K in keyof MemoryToolHandlers]: (command: Command<K>) => Promise<string>;
};

/** One directory behind one virtual root: its handlers, and the listing view builds on. */
interface LayerTool {
  handlers: MemoryToolTextHandlers;
  /** The root's size and the entries below it, up to `depth` levels (none when it is missing). */
  listed(depth: number): Promise<{ size: number; items: ListingItem[] }>;
}

/**
 * Handlers for the Anthropic `memory_20250818` tool over an engram memory directory. Pass them to
 * `betaMemoryTool(...)` from `@anthropic-ai/sdk/helpers/beta/memory`. `.md` topic files keep
 * MEMORY.md in step (the two-step save), and deleting a memory revokes it unless configured.
 * With `userDir`, `/memories/user/` is the user layer (see `MemoryToolOptions.userDir`).
 */
export function createMemoryToolHandlers(options: MemoryToolOptions): MemoryToolTextHandlers {
  const userDir = options.userDir;
  if (userDir === undefined || userDir === options.memoryDir)
    return layerTool(options, options.memoryDir, MEMORY_TOOL_ROOT).handlers;
  const userRoot = toolPathOf(USER_LAYER_FOLDER);
  const project = layerTool(options, options.memoryDir, MEMORY_TOOL_ROOT, USER_LAYER_FOLDER);
  const user = layerTool(options, userDir, userRoot);

  /**
   * Which layer a path is in, judged on the parsed path (so `/memories//user/x` is the user
   * layer too), and the path as that layer's handlers read it. A path the parser refuses goes to
   * the project layer, which refuses it in the usual words.
   */
  const route = (path: unknown): { tool: LayerTool; path: unknown } => {
    const parsed = parseMemoryToolPath(path);
    if (!parsed.ok) return { tool: project, path };
    const [first, ...rest] = parsed.rel.split('/');
    if (first !== USER_LAYER_FOLDER) return { tool: project, path };
    return { tool: user, path: toolPathOf(rest.join('/'), userRoot) };
  };

  async function view(command: Command<'view'>): Promise<string> {
    const parsed = parseMemoryToolPath(command.path);
    if (parsed.ok && parsed.rel === '') {
      // The root lists both layers: the project's entries, then the user layer as `user/`.
      const [mine, theirs] = await Promise.all([project.listed(2), user.listed(1)]);
      return formatListing(MEMORY_TOOL_ROOT, mine.size, [
        ...mine.items,
        { path: `${USER_LAYER_FOLDER}/`, size: theirs.size },
        ...theirs.items.map((i) => ({ ...i, path: `${USER_LAYER_FOLDER}/${i.path}` })),
      ]);
    }
    const { tool, path } = route(command.path);
    return tool.handlers.view({ ...command, path } as Command<'view'>);
  }

  const routed =
    <K extends 'create' | 'str_replace' | 'insert' | 'delete'>(name: K) =>
    (command: Command<K>): Promise<string> => {
      const { tool, path } = route((command as { path?: unknown }).path);
      const handler = tool.handlers[name] as (c: Command<K>) => Promise<string>;
      return handler({ ...command, path } as Command<K>);
    };

  async function rename(command: Command<'rename'>): Promise<string> {
    const from = route(command.old_path);
    const to = route(command.new_path);
    if (from.tool !== to.tool)
      throw new MemoryToolError(
        `Cannot move ${String(command.old_path)} to ${String(command.new_path)}: /memories and ${userRoot} are different memory directories. Create the memory in the other one and delete this one.`,
      );
    return from.tool.handlers.rename({
      ...command,
      old_path: from.path,
      new_path: to.path,
    } as Command<'rename'>);
  }

  return {
    view,
    create: routed('create'),
    str_replace: routed('str_replace'),
    insert: routed('insert'),
    delete: routed('delete'),
    rename,
  };
}

/**
 * The tool over one directory seen as `toolRoot`. `shadowed` is a top-level name another layer
 * takes over: it is not listed here.
 */
function layerTool(
  options: MemoryToolOptions,
  root: string,
  toolRoot: string,
  shadowed?: string,
): LayerTool {
  const clock = resolveClock(options);

  const confined = memoryDirConfinement(root);

  /** Confinement refusals in the official wording first (models know it), then the reason. */
  async function guarded<T>(t: { path: string }, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof ConfinementError) {
        throw new MemoryToolError(
          /link/.test(error.reason)
            ? `Path would escape /memories directory via symlink: ${t.path} (${error.reason})`
            : `Refused: ${t.path}: ${error.reason}.`,
        );
      }
      throw error;
    }
  }

  function target(path: unknown): Target {
    const parsed = parseMemoryToolPath(path, toolRoot);
    if (!parsed.ok) throw new MemoryToolError(parsed.error);
    return { path: String(path), rel: parsed.rel === '' ? '.' : parsed.rel };
  }

  /** A `.md` name that is not a safe topic-file name would index the wrong file: refuse it. */
  function writable(path: unknown): Target {
    const t = target(path);
    if (t.rel.endsWith('.md') && t.rel !== INDEX_FILE) {
      const problem = checkMemoryFileName(t.rel);
      if (problem) throw new MemoryToolError(problem);
    }
    return t;
  }

  async function existingFile(t: Target): Promise<string> {
    const content = await guarded(t, () => confined.readText(t.rel)).then(
      (r) => r.text,
      (error: unknown) => {
        if (errnoCode(error) === 'ENOENT')
          throw new MemoryToolError(
            `The path ${t.path} does not exist. Please provide a valid path.`,
          );
        if (errnoCode(error) === 'EISDIR')
          throw new MemoryToolError(`The path ${t.path} is not a file.`);
        throw error;
      },
    );
    const lines = content.split('\n').length;
    if (lines > MAX_FILE_LINES) {
      throw new MemoryToolError(
        `File ${t.path} has too many lines (${lines}). Maximum is ${MAX_FILE_LINES.toLocaleString('en-US')} lines.`,
      );
    }
    return content;
  }

  async function collectItems(top: string, maxDepth: number): Promise<ListingItem[]> {
    const items: ListingItem[] = [];
    const collect = async (rel: string, shownRel: string, depth: number): Promise<void> => {
      const entries = (await confined.list(rel)).sort((x, y) => (x.name < y.name ? -1 : 1));
      for (const entry of entries) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
        if (rel === '.' && entry.name === shadowed) continue;
        // Links are not listed: a listing never advertises a way out.
        if (entry.kind === 'other') continue;
        const childRel = rel === '.' ? entry.name : `${rel}/${entry.name}`;
        const childShown = shownRel ? `${shownRel}/${entry.name}` : entry.name;
        const info = await confined.info(childRel).catch(() => undefined);
        if (entry.kind === 'dir') {
          items.push({ path: `${childShown}/`, size: info?.size ?? 0 });
          if (depth < maxDepth) await collect(childRel, childShown, depth + 1);
        } else {
          items.push({ path: childShown, size: info?.size ?? 0 });
        }
      }
    };
    await collect(top, '', 1);
    return items;
  }

  async function listing(t: Target, dirSize: number): Promise<string> {
    return formatListing(t.path, dirSize, await collectItems(t.rel, 2));
  }

  async function info(t: Target, missing: string) {
    const found = await guarded(t, () => confined.info(t.rel));
    if (!found) throw new MemoryToolError(missing);
    return found;
  }

  async function view(command: Command<'view'>): Promise<string> {
    const t = target(command.path);
    // A layer's root that no save created yet is an empty folder, not a missing path.
    if (t.rel === '.' && (await guarded(t, () => confined.info('.'))) === undefined)
      return formatListing(t.path, 0, []);
    const found = await info(t, `The path ${t.path} does not exist. Please provide a valid path.`);
    if (found.kind === 'dir') return guarded(t, () => listing(t, found.size));
    const content = await existingFile(t);
    return formatFileView(t.path, content, command.view_range);
  }

  async function create(command: Command<'create'>): Promise<string> {
    const t = writable(command.path);
    if (t.rel === '.') throw new MemoryToolError(`File ${t.path} already exists`);
    return withMemoryLock(root, async () => {
      try {
        // Exclusive AND atomic (temp, fsync, link into place): a kill leaves no file or the
        // whole file, so a retry never meets a half-written "already exists".
        await guarded(t, () =>
          confined.writeText(t.rel, command.file_text ?? '', { exclusive: true, mode: FILE_MODE }),
        );
      } catch (error) {
        if (errnoCode(error) === 'EEXIST' || errnoCode(error) === 'EISDIR') {
          throw new MemoryToolError(`File ${t.path} already exists${await revokedNote(t)}`);
        }
        throw error;
      }
      try {
        return `File created successfully at: ${t.path}${await afterWrite(t)}`;
      } catch (error) {
        // The file and its index line are one save: without the line, no file either.
        await confined.remove(t.rel).catch(() => {});
        throw error;
      }
    });
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
    const t = writable(command.path);
    // Read, edit and write under the lock: MEMORY.md is rewritten by concurrent saves too.
    return withMemoryLock(root, () => strReplaceLocked(t, command));
  }

  async function strReplaceLocked(t: Target, command: Command<'str_replace'>): Promise<string> {
    const content = await existingFile(t);
    const oldStr = command.old_str ?? '';
    const newStr = command.new_str ?? '';
    const edit = uniqueEdit(content, oldStr, newStr);
    if (!edit.ok && edit.kind !== 'ambiguous') {
      throw new MemoryToolError(
        `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${t.path}.`,
      );
    }
    if (!edit.ok) {
      throw new MemoryToolError(
        `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${edit.lines.join(', ')}. Please ensure it is unique`,
      );
    }
    await guarded(t, () => confined.writeText(t.rel, edit.text, { mode: FILE_MODE }));
    const snippet = editSnippet(edit.text, edit.line, newStr.split('\n').length);
    return `${snippet}${await afterWrite(t)}`;
  }

  async function insert(command: Command<'insert'>): Promise<string> {
    const t = writable(command.path);
    return withMemoryLock(root, () => insertLocked(t, command));
  }

  async function insertLocked(t: Target, command: Command<'insert'>): Promise<string> {
    const content = await existingFile(t);
    const lines = content.split('\n');
    const at = command.insert_line;
    if (!Number.isInteger(at) || at < 0 || at > lines.length) {
      throw new MemoryToolError(
        `Invalid \`insert_line\` parameter: ${at}. It should be within the range of lines of the file: [0, ${lines.length}]`,
      );
    }
    lines.splice(at, 0, (command.insert_text ?? '').replace(/\n$/, ''));
    await guarded(t, () => confined.writeText(t.rel, lines.join('\n'), { mode: FILE_MODE }));
    return `The file ${t.path} has been edited.${await afterWrite(t)}`;
  }

  async function remove(command: Command<'delete'>): Promise<string> {
    const t = target(command.path);
    if (t.rel === '.') throw new MemoryToolError(`Cannot delete the ${toolRoot} directory itself`);
    if (t.rel === INDEX_FILE) {
      throw new MemoryToolError(
        `${t.path} is the index of this memory directory and is kept in step automatically; delete the memories it lists instead.`,
      );
    }
    // Checked as a write first: a link, `.git` or a lock file is refused before anything happens.
    await guarded(t, () => confined.check(t.rel, 'write'));
    const found = await info(t, `The path ${t.path} does not exist`);
    const isDirectory = found.kind === 'dir';
    if ((options.onDelete ?? 'revoke') === 'revoke') {
      const kept = await revokeForDelete(
        root,
        { rel: t.rel, isDirectory },
        { reason: options.deleteReason ?? 'Deleted through the memory tool.', clock },
      );
      if (kept > 0) {
        return `Successfully deleted ${t.path} (${kept === 1 ? 'the memory is' : `${kept} memories are`} kept on disk marked revoked, so ${kept === 1 ? 'it is' : 'they are'} never recalled or learned again)`;
      }
    }
    const gone = isDirectory
      ? (await listMemoryFiles(join(root, t.rel))).map((f) => `${t.rel}/${f}`)
      : [t.rel];
    await guarded(t, () => confined.remove(t.rel, { recursive: true }));
    await syncRenamedIndex(
      root,
      gone.filter(isTopicFile).map((from) => ({ from })),
    );
    return `Successfully deleted ${t.path}`;
  }

  async function renameCommand(command: Command<'rename'>): Promise<string> {
    const from = target(command.old_path);
    const to = writable(command.new_path);
    if (from.rel === '.')
      throw new MemoryToolError(`Cannot rename the ${toolRoot} directory itself`);
    if (from.rel === INDEX_FILE || to.rel === INDEX_FILE) {
      throw new MemoryToolError(
        `${INDEX_FILE} is the index of this memory directory and cannot be renamed or replaced.`,
      );
    }
    await guarded(from, () => confined.check(from.rel, 'write'));
    await guarded(to, () => confined.check(to.rel, 'write')).catch((error: unknown) => {
      if (errnoCode(error) !== 'ENOENT') throw error;
    });
    if (to.rel === '.' || (await confined.info(to.rel)) !== undefined) {
      throw new MemoryToolError(`The destination ${to.path} already exists`);
    }
    const found = await info(from, `The path ${from.path} does not exist`);
    const isDirectory = found.kind === 'dir';
    if (isDirectory && (to.rel === from.rel || to.rel.startsWith(`${from.rel}/`))) {
      throw new MemoryToolError(`Cannot move ${from.path} into itself`);
    }
    const moved = isDirectory
      ? (await listMemoryFiles(join(root, from.rel))).map((f) => ({
          from: `${from.rel}/${f}`,
          to: `${to.rel}/${f}`,
        }))
      : [{ from: from.rel, to: to.rel }];
    await guarded(from, () => confined.rename(from.rel, to.rel));
    await syncRenamedIndex(
      root,
      moved.filter((m) => isTopicFile(m.from) || isTopicFile(m.to)),
    );
    return `Successfully renamed ${from.path} to ${to.path}`;
  }

  const handlers: MemoryToolTextHandlers = {
    view,
    create,
    str_replace: strReplace,
    insert,
    delete: (command) => withMemoryLock(root, () => remove(command)),
    rename: (command) => withMemoryLock(root, () => renameCommand(command)),
  };
  return {
    handlers,
    async listed(depth) {
      const found = await confined.info('.').catch(() => undefined);
      return found === undefined
        ? { size: 0, items: [] }
        : { size: found.size, items: await collectItems('.', depth) };
    },
  };
}
