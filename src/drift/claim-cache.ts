import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureOwnFolderSync } from '../confine/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { withFileLock } from '../util/file-lock.js';
import type { ClaimCheck } from './claims.js';

/** Inside the memory directory's dot folder, which scans never read as memories. */
export const CLAIM_CACHE_FILE = '.engram/claim-checks.json';

export interface ClaimCacheEntry {
  /** Hash of the memory's text: an edited memory is checked again. */
  identity: string;
  /** The project state the checks were made against (HEAD + worktree status). */
  state: string;
  /** The cheap key (HEAD + index stat) seen when the checks were made; see ProjectProbe.quickState. */
  quickState?: string;
  checkedAt: string;
  checks: ClaimCheck[];
}

/**
 * Bumped when what a check may look at changes, so no verdict made under older rules is reused:
 * 2 stopped reading credential files (a version-1 `holds` may have come from `.env`).
 */
export const CLAIM_CACHE_VERSION = 2;

export interface ClaimCache {
  version: typeof CLAIM_CACHE_VERSION;
  /** By memory file: the latest checks only. */
  entries: Record<string, ClaimCacheEntry>;
}

export function claimCachePath(memoryDir: string): string {
  return join(memoryDir, CLAIM_CACHE_FILE);
}

/** A memory file's identity for the cache: its name and a hash of its text. Pure. */
export function memoryIdentity(file: string, content: string): string {
  return createHash('sha256').update(file).update('\0').update(content).digest('hex').slice(0, 24);
}

/**
 * The cache on disk; missing or unreadable → empty (a cache is never a reason to fail). Read with
 * one synchronous call: recall reads it every turn, and the thread-pool round trips of an async
 * read (open, stat, read, close) cost a long-running server more than the read itself.
 */
export function readClaimCache(path: string): ClaimCache {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<ClaimCache>;
    if (
      data.version === CLAIM_CACHE_VERSION &&
      typeof data.entries === 'object' &&
      data.entries !== null
    ) {
      return { version: CLAIM_CACHE_VERSION, entries: data.entries };
    }
  } catch {
    // missing or corrupt: start over
  }
  return { version: CLAIM_CACHE_VERSION, entries: {} };
}

/**
 * The cached checks for this memory text in this project state, if any: matched on the full
 * state, or on the quick one when that is all the caller could afford. Pure.
 */
export function cachedChecks(
  cache: ClaimCache,
  file: string,
  identity: string,
  state: { full?: string; quick?: string },
): ClaimCheck[] | undefined {
  const entry = Object.hasOwn(cache.entries, file) ? cache.entries[file] : undefined;
  if (!entry || entry.identity !== identity) return undefined;
  if (state.full !== undefined) return entry.state === state.full ? entry.checks : undefined;
  return state.quick !== undefined && entry.quickState === state.quick ? entry.checks : undefined;
}

/** Merge new entries into the cache file under a lock (several hooks and refreshes may write). */
export async function writeClaimCache(
  path: string,
  updates: Record<string, ClaimCacheEntry>,
): Promise<void> {
  if (Object.keys(updates).length === 0) return;
  // A plain folder: a linked `.engram` would carry the cache and its lock out of the directory.
  ensureOwnFolderSync(dirname(path));
  await withFileLock(
    `${path}.lock`,
    async () => {
      const current = readClaimCache(path);
      const next: ClaimCache = {
        version: CLAIM_CACHE_VERSION,
        entries: { ...current.entries, ...updates },
      };
      await writeFileAtomic(path, `${JSON.stringify(next)}\n`, { mode: 0o600 });
    },
    { timeoutMs: 5_000 },
  );
}
