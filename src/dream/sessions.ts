import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readSessionRecord } from '../session/session-store.js';
import { errnoCode } from '../util/errors.js';
import type { SessionRef } from './gates.js';

/**
 * Where sessions come from. The session gate is the first gate that scans a directory, so it is
 * an interface: hosts plug in their own transcript store and tests count the calls.
 */
export interface SessionLister {
  /** Sessions whose record changed after `sinceMs` (all of them when `sinceMs` is 0). */
  listSessionsTouchedSince(sinceMs: number): Promise<SessionRef[]>;
}

export interface TranscriptDirectoryOptions {
  /** File extension of one session's transcript (default `.jsonl`, as Claude Code writes them). */
  extension?: string;
}

/**
 * One transcript file per session in a flat directory (Claude Code:
 * `~/.claude/projects/<project>/<session id>.jsonl`). The id is the file stem and the mtime says
 * when the session last wrote. Subfolders (subagent transcripts, spilled tool output) are not sessions.
 */
export function transcriptDirectoryLister(
  dir: string,
  options: TranscriptDirectoryOptions = {},
): SessionLister {
  const extension = options.extension ?? '.jsonl';
  return {
    async listSessionsTouchedSince(sinceMs) {
      const entries = await readEntries(dir);
      const files = entries.filter((e) => e.isFile() && e.name.endsWith(extension));
      const refs = await Promise.all(
        files.map((e) => refFor(e.name.slice(0, -extension.length), join(dir, e.name))),
      );
      return refs.filter((r): r is SessionRef => r !== undefined && r.mtimeMs > sinceMs);
    },
  };
}

export interface SessionFolderOptions {
  /**
   * Count only sessions recorded as working in this project (their `session.json` names it).
   * The folders of every project on the machine share one parent, so without this a busy
   * machine would open the session gate for a project nobody worked in. Folders without a record
   * cannot be attributed and are left out when a project is given.
   */
  projectRoot?: string;
}

/**
 * engram's own session records: one folder per session (`$ENGRAM_HOME/session-memory/<id>/`),
 * touched when its notes change. The folder's newest file decides when the session was last active.
 */
export function sessionFolderLister(
  dir: string,
  options: SessionFolderOptions = {},
): SessionLister {
  const project = options.projectRoot === undefined ? undefined : resolve(options.projectRoot);
  return {
    async listSessionsTouchedSince(sinceMs) {
      const entries = await readEntries(dir);
      const folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.'));
      const refs = await Promise.all(
        folders.map(async (e) => {
          const folder = join(dir, e.name);
          const ref = await newestIn(e.name, folder);
          if (!ref || ref.mtimeMs <= sinceMs || project === undefined) return ref;
          // Read only for sessions that are recent enough to count: the record costs one read.
          const record = await readSessionRecord(folder);
          return record && resolve(record.projectRoot) === project ? ref : undefined;
        }),
      );
      return refs.filter((r): r is SessionRef => r !== undefined && r.mtimeMs > sinceMs);
    },
  };
}

/** Several sources as one; a session seen twice counts once, at its newest time. */
export function combineSessionListers(...listers: SessionLister[]): SessionLister {
  return {
    async listSessionsTouchedSince(sinceMs) {
      const lists = await Promise.all(listers.map((l) => l.listSessionsTouchedSince(sinceMs)));
      const byId = new Map<string, SessionRef>();
      for (const ref of lists.flat()) {
        const seen = byId.get(ref.id);
        if (!seen || ref.mtimeMs > seen.mtimeMs) byId.set(ref.id, ref);
      }
      return [...byId.values()];
    },
  };
}

async function readEntries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    // No transcript directory yet simply means no sessions.
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return [];
    throw error;
  }
}

async function refFor(id: string, path: string): Promise<SessionRef | undefined> {
  try {
    return { id, path, mtimeMs: (await stat(path)).mtimeMs };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined; // removed while we looked
    throw error;
  }
}

async function newestIn(id: string, folder: string): Promise<SessionRef | undefined> {
  const own = await refFor(id, folder);
  if (!own) return undefined;
  let newest = own.mtimeMs;
  for (const entry of await readEntries(folder)) {
    if (!entry.isFile()) continue;
    const ref = await refFor(id, join(folder, entry.name));
    if (ref && ref.mtimeMs > newest) newest = ref.mtimeMs;
  }
  return { id, path: folder, mtimeMs: newest };
}

/**
 * Claude Code's transcript folder for a working directory: every character that is not a letter
 * or digit becomes `-` (`/home/u/my.app` → `-home-u-my-app`). Names over 200 characters get a hash
 * suffix we cannot reproduce, so those are matched by their 200-character prefix.
 */
export async function claudeCodeTranscriptDir(
  cwd: string,
  env: Record<string, string | undefined>,
  homedir: string,
): Promise<string | undefined> {
  const root = env.CLAUDE_CONFIG_DIR?.trim() || join(homedir, '.claude');
  const projects = join(root, 'projects');
  const name = env.CLAUDE_CODE_PROJECT_DIR_NAME?.trim() || cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return join(projects, name);
  const prefix = name.slice(0, 200);
  const match = (await readEntries(projects)).find(
    (e) => e.isDirectory() && e.name.startsWith(prefix),
  );
  return match ? join(projects, match.name) : undefined;
}
