/**
 * Starter memory a team commits for an agent: `<repo>/.engram/agent-memory-snapshots/<agent>/`.
 * On an agent's first use its local memory is seeded from the snapshot (copied, the snapshot's
 * version recorded). When the committed snapshot moves on, engram says `prompt-update` and changes
 * nothing until the user asks (`engram agent sync-snapshot`): local memory is never overwritten
 * without consent. A versioned seed plus an explicit prompt is an order of magnitude simpler than
 * live sync, and enough for starter knowledge.
 */
import { createHash } from 'node:crypto';
import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  type AgentMemoryRoots,
  type AgentScope,
  agentMemoryDirs,
  agentNameProblem,
  agentSnapshotDir,
  LOCAL_AGENT_DIR,
  PROJECT_AGENT_DIR,
  SNAPSHOT_AGENT_DIR,
} from '../config/agent-memory.js';
import { ConfinementError } from '../confine/index.js';
import { isInsideOrSame } from '../confine/policy.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/file-modes.js';
import { INDEX_FILE } from './constants.js';
import { type ImportResult, importMemoryDir } from './import-memories.js';

/** What a committed snapshot means for an agent's local memory right now. */
export type SnapshotAction = 'none' | 'initialize' | 'prompt-update';

/** Optional, in the snapshot folder: `{ "updatedAt": "<ISO time>" }`, the snapshot's version. */
export const SNAPSHOT_META_FILE = 'snapshot.json';
/** In the agent's local folder: which snapshot version it was seeded or last synced from. */
export const SNAPSHOT_RECORD_FILE = '.snapshot-synced.json';

export interface SnapshotStatus {
  agent: string;
  action: SnapshotAction;
  snapshotDir: string;
  localDir: string;
  /** The committed snapshot's version (its `updatedAt`, else a hash of its files); absent without one. */
  snapshotVersion?: string;
  /** The version the local memory was seeded or synced from, if ever. */
  syncedFrom?: string;
}

interface SnapshotRecord {
  syncedFrom: string;
  syncedAt: string;
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    return {}; // unreadable JSON: treated as "no version", never as a reason to fail a turn
  }
}

/**
 * The first folder on the way from the project root to `dir` that is a symbolic link, or
 * undefined (also for a folder outside the project, or one that does not exist yet). The
 * project-side agent folders (`.engram/agent-memory*`) come with the repository: a clone that
 * commits one of them as a link would point an agent's unprompted writes, and what its recall
 * reads into the prompt, at any folder on the machine.
 */
export function agentFolderLink(roots: AgentMemoryRoots, dir: string): string | undefined {
  if (!isInsideOrSame(dir, roots.projectRoot)) return undefined;
  let path = roots.projectRoot;
  for (const part of relative(roots.projectRoot, dir).split(sep).filter(Boolean)) {
    path = join(path, part);
    try {
      if (lstatSync(path).isSymbolicLink()) return path;
    } catch {
      return undefined; // missing: nothing further down exists either
    }
  }
  return undefined;
}

/** Refuses (ConfinementError) when one of the agent's project-side folders is reached through a link. */
export function assertAgentFoldersPlain(roots: AgentMemoryRoots, agent: string): void {
  const dirs = agentMemoryDirs(roots, agent);
  for (const dir of [dirs.local, dirs.project, agentSnapshotDir(roots, agent)]) {
    const link = agentFolderLink(roots, dir);
    if (link !== undefined)
      throw new ConfinementError(
        link,
        "it is a symbolic link, and engram never follows a link among a project's agent-memory folders (a cloned repository could point them anywhere); make it a plain folder",
      );
  }
}

/** Memory files at the top of a folder (regular `.md` files, the index included). */
async function memoryFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return [];
    throw error;
  }
  const files: string[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.md') || name.startsWith('.')) continue;
    if ((await lstat(join(dir, name))).isFile()) files.push(name);
  }
  return files;
}

/**
 * The snapshot's version: its `updatedAt` when it declares one, else a hash of its memory files'
 * names and bytes (a checkout's mtimes say when it was cloned, not when the snapshot changed).
 */
async function snapshotVersion(dir: string): Promise<string | undefined> {
  const files = await memoryFiles(dir);
  if (files.filter((f) => f !== INDEX_FILE).length === 0) return undefined;
  const meta = await readJson(join(dir, SNAPSHOT_META_FILE));
  const updatedAt = meta?.updatedAt;
  if (typeof updatedAt === 'string' && !Number.isNaN(Date.parse(updatedAt))) return updatedAt;
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0`).update(await readFile(join(dir, file)));
  return `sha256:${hash.digest('hex')}`;
}

/** Whether `current` is a newer snapshot than `recorded`: later in time, or different content. Pure. */
export function snapshotMovedOn(current: string, recorded: string): boolean {
  const a = Date.parse(current);
  const b = Date.parse(recorded);
  if (!current.startsWith('sha256:') && !recorded.startsWith('sha256:') && !Number.isNaN(a + b)) {
    return a > b;
  }
  return current !== recorded;
}

/** What the committed snapshot means for the agent's local memory. Reads only; changes nothing. */
export async function checkAgentSnapshot(
  roots: AgentMemoryRoots,
  agent: string,
): Promise<SnapshotStatus> {
  assertAgentFoldersPlain(roots, agent);
  const snapshotDir = agentSnapshotDir(roots, agent);
  const localDir = agentMemoryDirs(roots, agent).local;
  const status: SnapshotStatus = { agent, action: 'none', snapshotDir, localDir };
  const version = await snapshotVersion(snapshotDir);
  if (version === undefined) return status;
  status.snapshotVersion = version;
  const record = await readJson(join(localDir, SNAPSHOT_RECORD_FILE));
  const syncedFrom = typeof record?.syncedFrom === 'string' ? record.syncedFrom : undefined;
  if (syncedFrom !== undefined) status.syncedFrom = syncedFrom;
  if (syncedFrom === undefined) {
    // Memory of its own and no record: the user decides whether the snapshot goes over it.
    const own = (await memoryFiles(localDir)).filter((f) => f !== INDEX_FILE);
    status.action = own.length === 0 ? 'initialize' : 'prompt-update';
  } else if (snapshotMovedOn(version, syncedFrom)) status.action = 'prompt-update';
  return status;
}

/**
 * The local agent folder is this checkout's alone: a `.gitignore` inside it keeps git from ever
 * offering to commit it, without editing the repository's own ignore files.
 */
export async function ensureLocalAgentIgnored(projectRoot: string): Promise<void> {
  const dir = join(projectRoot, LOCAL_AGENT_DIR);
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const ignore = join(dir, '.gitignore');
  try {
    await stat(ignore);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
    await writeFile(
      ignore,
      '# engram: per-agent memory private to this checkout; never committed\n*\n',
      { mode: PRIVATE_FILE_MODE, flag: 'wx' },
    ).catch((e: unknown) => {
      if (errnoCode(e) !== 'EEXIST') throw e;
    });
  }
}

async function recordSync(localDir: string, version: string, now: number): Promise<void> {
  const record: SnapshotRecord = { syncedFrom: version, syncedAt: new Date(now).toISOString() };
  await writeFileAtomic(join(localDir, SNAPSHOT_RECORD_FILE), `${JSON.stringify(record)}\n`, {
    mode: PRIVATE_FILE_MODE,
  });
}

export interface AgentPreparation extends SnapshotStatus {
  /** Files copied from the snapshot now (first use only). */
  seeded: string[];
}

/**
 * An agent's first use: when the snapshot says `initialize`, its files are copied into the local
 * folder with their index lines and the version is recorded. Any other state is only reported.
 */
export async function prepareAgentMemory(
  roots: AgentMemoryRoots,
  agent: string,
  now: number,
): Promise<AgentPreparation> {
  const status = await checkAgentSnapshot(roots, agent);
  if (status.action !== 'initialize' || status.snapshotVersion === undefined) {
    return { ...status, seeded: [] };
  }
  await ensureLocalAgentIgnored(roots.projectRoot);
  const copied = await importMemoryDir(status.snapshotDir, status.localDir);
  await recordSync(status.localDir, status.snapshotVersion, now);
  return { ...status, seeded: copied.imported };
}

/**
 * The user's consent to take the committed snapshot: its files replace same-named local ones,
 * local-only memories stay, and the new version is recorded so `prompt-update` stops.
 */
export async function syncAgentSnapshot(
  roots: AgentMemoryRoots,
  agent: string,
  now: number,
): Promise<ImportResult & { snapshotVersion?: string }> {
  const status = await checkAgentSnapshot(roots, agent);
  if (status.snapshotVersion === undefined) {
    return { from: status.snapshotDir, to: status.localDir, imported: [], skipped: [] };
  }
  await ensureLocalAgentIgnored(roots.projectRoot);
  const result = await importMemoryDir(status.snapshotDir, status.localDir, { overwrite: true });
  await recordSync(status.localDir, status.snapshotVersion, now);
  return { ...result, snapshotVersion: status.snapshotVersion };
}

/**
 * Agents this user or project has memory or a committed snapshot for: the folder names under
 * the four agent roots that are valid agent names. Used to tell `@reviewer` (an agent) from
 * `@src/x.ts` (a file) in a prompt, so it must stay cheap: four readdirs.
 */
export function knownAgentNames(roots: AgentMemoryRoots): string[] {
  const names = new Set<string>();
  const parents = [
    join(roots.engramHome, 'agent-memory'),
    join(roots.projectRoot, PROJECT_AGENT_DIR),
    join(roots.projectRoot, LOCAL_AGENT_DIR),
    join(roots.projectRoot, SNAPSHOT_AGENT_DIR),
  ];
  for (const parent of parents) {
    let entries: Dirent[];
    try {
      entries = readdirSync(parent, { withFileTypes: true });
    } catch {
      continue; // no such folder: no agents there
    }
    for (const e of entries) {
      if (e.isDirectory() && agentNameProblem(e.name) === undefined) names.add(e.name);
    }
  }
  return [...names].sort();
}

/**
 * The folder a write for an agent goes to. A write to the local scope first makes sure git will
 * ignore the local agent folder, so a memory meant for this checkout is never committed.
 */
export async function agentWriteDir(
  roots: AgentMemoryRoots,
  agent: string,
  scope: AgentScope,
): Promise<string> {
  assertAgentFoldersPlain(roots, agent);
  const dir = agentMemoryDirs(roots, agent)[scope];
  if (scope === 'local') await ensureLocalAgentIgnored(roots.projectRoot);
  return dir;
}
