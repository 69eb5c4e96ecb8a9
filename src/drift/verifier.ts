import { parseFrontmatter } from '../memdir/frontmatter.js';
import type { MemoryVerdict, MemoryVerifier, VerifyRequest } from '../recall/verification.js';
import { type Clock, systemClock } from '../util/clock.js';
import { checkClaims } from './check-claims.js';
import {
  type ClaimCache,
  type ClaimCacheEntry,
  cachedChecks,
  claimCachePath,
  memoryIdentity,
  readClaimCache,
  writeClaimCache,
} from './claim-cache.js';
import { type MemoryVerification, summarizeChecks } from './claims.js';
import { extractClaims } from './extract-claims.js';
import { type ProjectProbe, projectProbe } from './project-probe.js';
import { verificationNote } from './prompts.js';

/** A verification gets this long in all (project state, cache, checks); past it, it gives up. */
export const DEFAULT_VERIFY_BUDGET_MS = 2_000;

export interface ClaimVerifierOptions {
  /** A folder inside the project the agent works in (its git root is found from here). */
  projectDir: string;
  memoryDir: string;
  /** Total time for one `verify` call. */
  budgetMs?: number;
  /** How long recall waits for the verdicts (default: the whole budget). */
  waitMs?: number;
  /**
   * `check` (default) checks what the cache does not answer, in this process. `cache-only` answers
   * from the persisted cache alone and hands the rest to `onMisses`: for one-shot processes (the
   * hook) that must not outlive the turn, a detached refresh fills the cache for the next turn.
   */
  mode?: 'check' | 'cache-only';
  onMisses?: (files: string[]) => void;
  cacheFile?: string;
  /** Check everything again instead of trusting the cache (results are still written to it). */
  fresh?: boolean;
  /** The project as checks see it (default: git when in a repository, else a bounded walk). */
  probe?: ProjectProbe;
  clock?: Clock;
}

export interface ClaimVerifier extends MemoryVerifier {
  prepare(): void;
  /** Verify memories in full (for `engram verify` and the doctor); results go to the cache. */
  verifyMemories(requests: readonly VerifyRequest[]): Promise<Map<string, MemoryVerification>>;
  /** Stop checks in flight (their git processes too), so a one-shot process can exit. */
  dispose(): void;
}

/** The verdict recall freezes into a header, from a memory's checks. Pure. */
export function verdictFor(v: MemoryVerification): MemoryVerdict {
  return { total: v.total, checked: v.checked, failed: v.failed, note: verificationNote(v) };
}

function bodyOf(content: string): string {
  const parsed = parseFrontmatter(content);
  return parsed.found ? parsed.body : content;
}

/**
 * Claim verification for recall: checks are keyed by (memory text, project state) and persisted
 * in the memory directory, so a memory is checked once per change of either.
 */
export function createClaimVerifier(options: ClaimVerifierOptions): ClaimVerifier {
  const budgetMs = options.budgetMs ?? DEFAULT_VERIFY_BUDGET_MS;
  const cacheFile = options.cacheFile ?? claimCachePath(options.memoryDir);
  const disposal = new AbortController();
  interface Round {
    mode: 'check' | 'cache-only';
    probe: ProjectProbe;
    /** Ends the round's git processes when its budget is spent. */
    abort: AbortController;
    ready: Promise<{ state: string | undefined; quick: string | undefined; cache: ClaimCache }>;
  }
  // One round per verification: a long-lived host (MCP server, library) sees renames made since.
  const startRound = (mode: 'check' | 'cache-only'): Round => {
    const abort = new AbortController();
    const probe =
      options.probe ??
      projectProbe(options.projectDir, {
        memoryDir: options.memoryDir,
        signal: AbortSignal.any([disposal.signal, abort.signal]),
        ...(options.clock ? { clock: options.clock } : {}),
      });
    const quickNow = () => {
      try {
        return probe.quickState();
      } catch {
        return undefined;
      }
    };
    // Cache-only answers (the prompt hook, which waits for no verdict) are complete when the round
    // is prepared: the quick key and the cache are read synchronously, with no git process, so a
    // turn always sees a cached verdict and a miss always reaches `onMisses` before the turn ends.
    if (mode === 'cache-only') {
      const ready = Promise.resolve({
        state: undefined,
        quick: quickNow(),
        cache: readClaimCache(cacheFile),
      });
      return { mode, probe, abort, ready };
    }
    // The quick key is read after the full state, so the checks are stored under the key the
    // project has once they are known (a `git status` elsewhere may rewrite the index meanwhile).
    const ready = probe
      .state()
      .catch(() => undefined)
      .then((state) => ({ state, quick: quickNow(), cache: readClaimCache(cacheFile) }));
    return { mode, probe, abort, ready };
  };
  let next: Round | undefined;

  async function run(
    requests: readonly VerifyRequest[],
    mode: 'check' | 'cache-only',
  ): Promise<Map<string, MemoryVerification>> {
    // The budget's timer is cleared when the run ends: a long-running host verifies every turn,
    // and each run's timer firing later (aborting a finished run) is work for nothing.
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(), budgetMs);
    timer.unref();
    const signal = AbortSignal.any([budget.signal, disposal.signal]);
    const round = next?.mode === mode ? next : startRound(mode);
    next = undefined;
    signal.addEventListener('abort', () => round.abort.abort(), { once: true });
    try {
      return await verifyRound(requests, mode, round, signal);
    } finally {
      clearTimeout(timer);
    }
  }

  async function verifyRound(
    requests: readonly VerifyRequest[],
    mode: 'check' | 'cache-only',
    round: Round,
    signal: AbortSignal,
  ): Promise<Map<string, MemoryVerification>> {
    const out = new Map<string, MemoryVerification>();
    const { probe } = round;
    const { state, quick, cache } = await raceSignal(round.ready, signal);
    // The project cannot be read: no verdicts at all.
    if (mode === 'cache-only' ? quick === undefined : state === undefined) return out;
    const key = mode === 'cache-only' ? { quick: quick! } : { full: state! };
    const misses: VerifyRequest[] = [];
    const updates: Record<string, ClaimCacheEntry> = {};
    for (const r of requests) {
      const checks = options.fresh
        ? undefined
        : cachedChecks(cache, r.file, memoryIdentity(r.file, r.content), key);
      if (!checks) {
        misses.push(r);
        continue;
      }
      out.set(r.file, summarizeChecks(r.file, checks));
      // A full-state hit under a quick key the entry does not know (a plain `git status` elsewhere
      // rewrote the index, the tree is the same): record it, or the hook misses at every turn.
      const entry = cache.entries[r.file];
      if (mode === 'check' && quick !== undefined && entry && entry.quickState !== quick) {
        updates[r.file] = { ...entry, quickState: quick };
      }
    }
    if (mode === 'cache-only') {
      if (misses.length > 0) options.onMisses?.(misses.map((m) => m.file));
      return out;
    }
    for (const r of misses) {
      const checks = await checkClaims(extractClaims(bodyOf(r.content)), probe, signal);
      // Past the budget nothing of this memory is used or kept: a half-checked memory would read
      // as better verified than it is.
      if (signal.aborted) break;
      out.set(r.file, summarizeChecks(r.file, checks));
      updates[r.file] = {
        identity: memoryIdentity(r.file, r.content),
        state: state!,
        ...(quick ? { quickState: quick } : {}),
        checkedAt: new Date((options.clock ?? systemClock).now()).toISOString(),
        checks,
      };
    }
    await writeClaimCache(cacheFile, updates).catch(() => undefined);
    return out;
  }

  return {
    waitMs: options.waitMs ?? budgetMs,
    prepare() {
      next ??= startRound(options.mode ?? 'check');
    },
    async verify(requests) {
      const verified = await run(requests, options.mode ?? 'check').catch(
        () => new Map<string, MemoryVerification>(),
      );
      return new Map([...verified].map(([file, v]) => [file, verdictFor(v)]));
    },
    verifyMemories: (requests) => run(requests, 'check'),
    dispose: () => disposal.abort(),
  };
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('verification budget spent'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('verification budget spent'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
