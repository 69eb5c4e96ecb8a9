import type { ConversationPrefix, LanguageModel } from '../llm/types.js';
import { type Clock, type LegacyNow, resolveClock } from '../util/clock.js';
import { EngramError, isEngramError } from '../util/errors.js';
import { isProcessAlive } from '../util/file-lock.js';
import {
  checkEnabledGate,
  checkScanThrottle,
  checkSessionGate,
  checkTimeGate,
  DEFAULT_DREAM_CONFIG,
  type DreamConfig,
  decideLock,
  type GateDecision,
  type GateName,
  type SessionRef,
  sessionsToReview,
} from './gates.js';
import {
  completeConsolidationLock,
  readLastConsolidatedAt,
  readLockState,
  rollbackConsolidationLock,
  tryAcquireConsolidationLock,
} from './lock.js';
import type { DreamProgress } from './progress.js';
import { type DreamRunResult, runDream } from './run.js';
import type { SessionLister } from './sessions.js';

export interface DreamerOptions {
  memoryDir: string;
  /** The user layer's directory, which the pass may also write (see `RunDreamOptions.userDir`). */
  userDir?: string;
  /** Where sessions come from; called at most once per `scanIntervalMs` per dreamer. */
  sessions: SessionLister;
  /** The model for the run; without one the enabled gate stops every call. */
  model?: LanguageModel;
  config?: Partial<DreamConfig>;
  /** Memory as a whole, and consolidation, may be switched off (default on). */
  memoryEnabled?: boolean;
  dreamEnabled?: boolean;
  clock?: Clock;
  /** @deprecated pass `clock`. */
  now?: LegacyNow;
  pid?: number;
  isProcessAlive?: (pid: number) => boolean;
  /**
   * Where the scan throttle remembers its last scan. Default: this dreamer's memory, right for a
   * host that keeps one dreamer. Hosts that start a process per turn (hooks) pass a file-backed
   * store, or every turn past the time gate would scan and, after a rollback, retry the run.
   */
  scanThrottle?: ScanThrottleStore;
}

export interface ScanThrottleStore {
  lastScanAtMs(): number | undefined;
  recordScan(atMs: number): void;
}

/** The default store: the last scan time held by one dreamer instance. */
export function memoryScanThrottle(): ScanThrottleStore {
  let last: number | undefined;
  return {
    lastScanAtMs: () => last,
    recordScan: (atMs) => {
      last = atMs;
    },
  };
}

export interface DreamContext {
  /** The session still running: its transcript is incomplete, so it is never counted or reviewed. */
  currentSessionId?: string;
  /** The host's last request, so the run shares its prompt cache. */
  prefix?: ConversationPrefix;
  signal?: AbortSignal;
  onProgress?: (progress: DreamProgress) => void;
  /** Called as each gate decides (the CLI shows them live). */
  onGate?: (decision: GateDecision) => void;
  /** Skip the time, throttle and session gates; the lock still applies. */
  force?: boolean;
}

export type DreamOutcome =
  | { kind: 'stopped'; gate: GateName; reason: string; gates: GateDecision[] }
  | {
      kind: 'ran';
      gates: GateDecision[];
      sessions: SessionRef[];
      /** `committed`: the lock's mtime is now. `rolled_back`: it is what it was before. */
      lock: 'committed' | 'rolled_back';
      run: DreamRunResult;
    }
  | { kind: 'error'; gates: GateDecision[]; error: EngramError };

export interface DryRunReport {
  /** The first gate that would stop a run, if any. */
  stoppedAt: GateName | undefined;
  reason: string | undefined;
  /** Every gate's decision, in order; a dry run evaluates them all, including past a stop. */
  gates: GateDecision[];
  sessions: SessionRef[];
  lastConsolidatedAt: number;
  /** A run also needs a model; the gates above are evaluated as if one were configured. */
  modelConfigured: boolean;
}

export interface Dreamer {
  /** Check the gates in cost order and run a consolidation when all pass. Never rejects. */
  maybeDream(context?: DreamContext): Promise<DreamOutcome>;
  /** What `maybeDream` would decide, without taking the lock or recording a scan. */
  dryRun(context?: Omit<DreamContext, 'signal' | 'onProgress' | 'prefix'>): Promise<DryRunReport>;
}

/**
 * A consolidation scheduler for one memory directory. It owns the scan throttle's state, so a
 * host keeps one dreamer for its lifetime and calls `maybeDream` at the end of every turn: most
 * calls end at the time gate after one stat.
 */
export function createDreamer(options: DreamerOptions): Dreamer {
  const config: DreamConfig = { ...DEFAULT_DREAM_CONFIG, ...options.config };
  const clock = resolveClock(options);
  const now = () => clock.now();
  const alive = options.isProcessAlive ?? isProcessAlive;
  const scans = options.scanThrottle ?? memoryScanThrottle();

  const settingsGate = () =>
    checkEnabledGate({
      memoryEnabled: options.memoryEnabled ?? true,
      dreamEnabled: options.dreamEnabled ?? true,
    });
  const enabledGate = (): GateDecision => {
    const decision = settingsGate();
    if (decision.kind === 'pass' && !options.model)
      return {
        kind: 'stop',
        gate: 'enabled',
        reason: 'no model is configured for background work',
      };
    return decision;
  };
  const forced = (gate: GateName, detail = 'skipped (--force)'): GateDecision => ({
    kind: 'pass',
    gate,
    detail,
  });

  const timeGate = (force: boolean | undefined, lastAt: number) =>
    force
      ? forced('time')
      : checkTimeGate({ lastConsolidatedAtMs: lastAt, nowMs: now(), minHours: config.minHours });
  const throttleGate = (force: boolean | undefined) =>
    force
      ? forced('throttle')
      : checkScanThrottle({
          lastScanAtMs: scans.lastScanAtMs(),
          nowMs: now(),
          scanIntervalMs: config.scanIntervalMs,
        });
  const sessionGate = (force: boolean | undefined, sessions: SessionRef[]) =>
    force
      ? forced('sessions', `${sessions.length} sessions (gate skipped by --force)`)
      : checkSessionGate({ sessions, minSessions: config.minSessions });

  type UpToLock =
    | { stop: GateDecision & { kind: 'stop' } }
    | { stop?: undefined; lastAt: number; sessions: SessionRef[] };

  async function gatesUpToLock(ctx: DreamContext, gates: GateDecision[]): Promise<UpToLock> {
    const record = (d: GateDecision) => {
      gates.push(d);
      ctx.onGate?.(d);
      return d.kind === 'stop' ? d : undefined;
    };
    const enabled = record(enabledGate());
    if (enabled) return { stop: enabled };
    const lastAt = await readLastConsolidatedAt(options.memoryDir);
    const time = record(timeGate(ctx.force, lastAt));
    if (time) return { stop: time };
    const throttle = record(throttleGate(ctx.force));
    if (throttle) return { stop: throttle };
    scans.recordScan(now());
    const listed = asRefs(await options.sessions.listSessionsTouchedSince(lastAt), lastAt);
    const sessions = sessionsToReview(listed, ctx.currentSessionId);
    const stop = record(sessionGate(ctx.force, sessions));
    return stop ? { stop } : { lastAt, sessions };
  }

  async function maybeDream(ctx: DreamContext = {}): Promise<DreamOutcome> {
    const gates: GateDecision[] = [];
    try {
      const passed = await gatesUpToLock(ctx, gates);
      if (passed.stop)
        return { kind: 'stopped', gate: passed.stop.gate, reason: passed.stop.reason, gates };
      const { lastAt, sessions } = passed;
      const acquired = await tryAcquireConsolidationLock(options.memoryDir, {
        clock,
        isProcessAlive: alive,
        staleMs: config.lockStaleMs,
        expectedMtimeMs: lastAt,
        ...(options.pid === undefined ? {} : { pid: options.pid }),
      });
      if (!acquired.acquired) {
        const stop: GateDecision = { kind: 'stop', gate: 'lock', reason: acquired.reason };
        gates.push(stop);
        ctx.onGate?.(stop);
        return { kind: 'stopped', gate: 'lock', reason: acquired.reason, gates };
      }
      gates.push(acquired.decision);
      ctx.onGate?.(acquired.decision);
      return await runHoldingLock(ctx, gates, sessions, acquired.lock);
    } catch (error) {
      return { kind: 'error', gates, error: asEngramError(error) };
    }
  }

  async function runHoldingLock(
    ctx: DreamContext,
    gates: GateDecision[],
    sessions: SessionRef[],
    lock: Parameters<typeof rollbackConsolidationLock>[0],
  ): Promise<DreamOutcome> {
    const limit = AbortSignal.timeout(Math.min(config.maxRunMs, config.lockStaleMs));
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, limit]) : limit;
    let run: DreamRunResult;
    try {
      run = await runDream({
        model: options.model as LanguageModel,
        memoryDir: options.memoryDir,
        ...(options.userDir === undefined ? {} : { userDir: options.userDir }),
        sessions,
        maxTurns: config.maxTurns,
        clock,
        ...(ctx.prefix ? { prefix: ctx.prefix } : {}),
        signal,
        ...(ctx.onProgress ? { onProgress: ctx.onProgress } : {}),
      });
    } catch (error) {
      // The run never finished: the next session must see the time gate still open.
      await rollbackConsolidationLock(lock);
      return { kind: 'error', gates, error: asEngramError(error) };
    }
    // Only a finished pass commits. A run cut off by its turn limit has not finished: pruning the
    // index comes last, so committing would leave a half-done directory for 24 h. Its edits stay
    // on disk, so the retry resumes with less left to do (issue: "failure or abort rolls back").
    if (run.status === 'completed') {
      await completeConsolidationLock(lock, { clock });
      return { kind: 'ran', gates, sessions, lock: 'committed', run };
    }
    await rollbackConsolidationLock(lock);
    return { kind: 'ran', gates, sessions, lock: 'rolled_back', run };
  }

  async function dryRun(
    ctx: Omit<DreamContext, 'signal' | 'onProgress' | 'prefix'> = {},
  ): Promise<DryRunReport> {
    const gates: GateDecision[] = [];
    const record = (d: GateDecision) => {
      gates.push(d);
      ctx.onGate?.(d);
    };
    // A dry run reports the model separately, so the gates it shows are the ones that would
    // decide once a model is configured.
    record(settingsGate());
    const lastAt = await readLastConsolidatedAt(options.memoryDir);
    record(timeGate(ctx.force, lastAt));
    record(throttleGate(ctx.force));
    // Scanned even past a stop (a report, not a turn), and not recorded for the throttle.
    const sessions = sessionsToReview(
      asRefs(await options.sessions.listSessionsTouchedSince(lastAt), lastAt),
      ctx.currentSessionId,
    );
    record(sessionGate(ctx.force, sessions));
    const state = await readLockState(options.memoryDir);
    record(
      decideLock({
        state,
        nowMs: now(),
        staleMs: config.lockStaleMs,
        holderAlive: state.holderPid !== undefined && alive(state.holderPid),
      }),
    );
    const first = gates.find((g) => g.kind === 'stop');
    return {
      stoppedAt: first?.gate,
      reason: first?.kind === 'stop' ? first.reason : undefined,
      gates,
      sessions,
      lastConsolidatedAt: lastAt,
      modelConfigured: options.model !== undefined,
    };
  }

  return { maybeDream, dryRun };
}

/** A JavaScript host's lister may return bare ids (the design's own sketch does): accept them. */
function asRefs(listed: ReadonlyArray<SessionRef | string>, sinceMs: number): SessionRef[] {
  return listed.map((s) => (typeof s === 'string' ? { id: s, path: s, mtimeMs: sinceMs } : s));
}

function asEngramError(error: unknown): EngramError {
  if (isEngramError(error)) return error;
  return new EngramError('io_error', error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}
