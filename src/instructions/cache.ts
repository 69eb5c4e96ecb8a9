/**
 * One load per working directory per process, like a session's view of its instructions. A host
 * invalidates explicitly (after compaction, a settings change, a worktree switch): files edited
 * mid-session must not silently change the prompt prefix a provider has cached.
 */

import { resolve } from 'node:path';
import type { EngramEnvironment } from '../config/index.js';
import { defaultEnvironment, engramHome, managedDir } from '../config/index.js';
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
export function loadInstructions(
  options: LoadInstructionsOptions | LoadInstructionsShorthand | string = {},
): Promise<InstructionsResult> {
  const { environment, cache: useCache } = normalizeOptions(options);
  const key = cacheKey(environment);
  const reason = pendingReasons.get(key) ?? 'session_start';
  if (useCache === false) return readInstructions(environment, reason);
  const hit = cache.get(key);
  if (hit) return hit;
  pendingReasons.delete(key);
  const promise = readInstructions(environment, reason);
  cache.set(key, promise);
  // A failure must not stick: the next call tries again.
  promise.catch(() => cache.delete(key));
  return promise;
}

/**
 * The short forms a host may pass instead of a full environment: a working directory, or
 * `{ cwd, env, homedir }` with the rest taken from this process.
 */
export interface LoadInstructionsShorthand extends Partial<EngramEnvironment> {
  cache?: boolean;
}

function normalizeOptions(
  options: LoadInstructionsOptions | LoadInstructionsShorthand | string,
): LoadInstructionsOptions {
  const base = defaultEnvironment();
  if (typeof options === 'string') return { environment: { ...base, cwd: options } };
  if ('environment' in options && options.environment) return options;
  const short = options as LoadInstructionsShorthand;
  return {
    environment: {
      cwd: short.cwd ?? base.cwd,
      env: short.env ?? base.env,
      homedir: short.homedir ?? base.homedir,
    },
    ...(short.cache !== undefined ? { cache: short.cache } : {}),
  };
}

/** Forget the cached result for one environment; the next load reports `reason`. */
export function invalidateInstructions(
  environment: EngramEnvironment | LoadInstructionsShorthand | string = {},
  reason: InstructionsLoadReason = 'manual',
): void {
  const key = cacheKey(normalizeOptions(environment).environment);
  cache.delete(key);
  pendingReasons.set(key, reason);
}

/** Forget every cached result (e.g. after user settings changed). */
export function clearInstructionsCache(reason: InstructionsLoadReason = 'manual'): void {
  // A directory never loaded before gets a first load, which is a session start for it.
  for (const key of cache.keys()) pendingReasons.set(key, reason);
  cache.clear();
}
