/**
 * One load per working directory per process, like a session's view of its instructions. A host
 * invalidates explicitly (after compaction, a settings change, a worktree switch): files edited
 * mid-session must not silently change the prompt prefix a provider has cached.
 */

import { resolve } from 'node:path';
import type { EngramEnvironment } from '../memdir/settings.js';
import { engramHome, managedDir } from '../memdir/settings.js';
import { readInstructions } from './load-instructions.js';
import type {
  InstructionsLoadReason,
  InstructionsResult,
  LoadInstructionsOptions,
} from './types.js';

const cache = new Map<string, Promise<InstructionsResult>>();
const pendingReasons = new Map<string, InstructionsLoadReason>();

function cacheKey(environment: EngramEnvironment): string {
  return JSON.stringify([
    resolve(environment.cwd),
    environment.homedir,
    engramHome(environment),
    managedDir(environment),
  ]);
}

/**
 * The instruction files for `environment.cwd`: discovered, loaded, assembled, and cached for the
 * process. Never rejects because of a file; problems are in `reports`.
 */
export function loadInstructions(options: LoadInstructionsOptions): Promise<InstructionsResult> {
  const key = cacheKey(options.environment);
  const reason = pendingReasons.get(key) ?? 'session_start';
  if (options.cache === false) return readInstructions(options.environment, reason);
  const hit = cache.get(key);
  if (hit) return hit;
  pendingReasons.delete(key);
  const promise = readInstructions(options.environment, reason);
  cache.set(key, promise);
  // A failure must not stick: the next call tries again.
  promise.catch(() => cache.delete(key));
  return promise;
}

/** Forget the cached result for one environment; the next load reports `reason`. */
export function invalidateInstructions(
  environment: EngramEnvironment,
  reason: InstructionsLoadReason = 'manual',
): void {
  const key = cacheKey(environment);
  cache.delete(key);
  pendingReasons.set(key, reason);
}

/** Forget every cached result (e.g. after user settings changed). */
export function clearInstructionsCache(reason: InstructionsLoadReason = 'manual'): void {
  // A directory never loaded before gets a first load, which is a session start for it.
  for (const key of cache.keys()) pendingReasons.set(key, reason);
  cache.clear();
}
