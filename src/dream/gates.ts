/**
 * The consolidation gates as pure decisions. Each takes plain data and an explicit `now` and
 * returns either `pass` or `stop` with a reason a person can read. The I/O that feeds them lives in
 * `dreamer.ts` and `lock.ts`, ordered so that a turn stopped by a cheap gate never pays for a
 * dearer one.
 */

export interface DreamConfig {
  /** Hours since the last consolidation before another may run. */
  minHours: number;
  /** Sessions touched since the last consolidation (the current one excluded). */
  minSessions: number;
  /**
   * At most one session scan per this many ms. Once the time gate opens it stays open until a
   * run succeeds, so without this throttle every turn would pay for a directory scan (§12.7).
   */
  scanIntervalMs: number;
  /** A lock younger than this whose holder is alive means another run is in progress. */
  lockStaleMs: number;
  /** Turn limit for the forked consolidation agent. */
  maxTurns: number;
  /**
   * Wall-clock limit for one run. It stays under `lockStaleMs`: a run still going when its lock
   * turns stale could be joined by a second one.
   */
  maxRunMs: number;
}

export const DEFAULT_DREAM_CONFIG: DreamConfig = {
  minHours: 24,
  minSessions: 5,
  scanIntervalMs: 10 * 60 * 1000,
  lockStaleMs: 60 * 60 * 1000,
  maxTurns: 30,
  maxRunMs: 50 * 60 * 1000,
};

export const GATE_NAMES = ['enabled', 'time', 'throttle', 'sessions', 'lock'] as const;
export type GateName = (typeof GATE_NAMES)[number];

export type GateDecision =
  | { kind: 'pass'; gate: GateName; detail: string }
  | { kind: 'stop'; gate: GateName; reason: string };

const pass = (gate: GateName, detail: string): GateDecision => ({ kind: 'pass', gate, detail });
const stop = (gate: GateName, reason: string): GateDecision => ({ kind: 'stop', gate, reason });

export interface EnabledInput {
  /** Memory as a whole is on (a host or setting may turn it off). */
  memoryEnabled: boolean;
  /** Consolidation is on. */
  dreamEnabled: boolean;
}

export function checkEnabledGate(input: EnabledInput): GateDecision {
  if (!input.memoryEnabled) return stop('enabled', 'memory is turned off (autoMemoryEnabled)');
  if (!input.dreamEnabled) return stop('enabled', 'consolidation is turned off (autoDreamEnabled)');
  return pass('enabled', 'memory and consolidation are on');
}

/** `lastConsolidatedAtMs` is the lock file's mtime; 0 means never consolidated. */
export function checkTimeGate(input: {
  lastConsolidatedAtMs: number;
  nowMs: number;
  minHours: number;
}): GateDecision {
  if (input.lastConsolidatedAtMs <= 0) return pass('time', 'never consolidated before');
  const hours = (input.nowMs - input.lastConsolidatedAtMs) / 3_600_000;
  const since = `${formatHours(hours)} since the last consolidation (${new Date(input.lastConsolidatedAtMs).toISOString()})`;
  if (hours < input.minHours) return stop('time', `${since}; needs ${input.minHours} h`);
  return pass('time', since);
}

/** `lastScanAtMs` undefined: this instance has not scanned yet. */
export function checkScanThrottle(input: {
  lastScanAtMs: number | undefined;
  nowMs: number;
  scanIntervalMs: number;
}): GateDecision {
  if (input.lastScanAtMs === undefined) return pass('throttle', 'no session scan yet');
  const elapsed = input.nowMs - input.lastScanAtMs;
  if (elapsed >= 0 && elapsed < input.scanIntervalMs) {
    return stop(
      'throttle',
      `sessions were scanned ${formatMinutes(elapsed)} ago; at most one scan per ${formatMinutes(input.scanIntervalMs)}`,
    );
  }
  return pass('throttle', `last session scan ${formatMinutes(elapsed)} ago`);
}

export interface SessionRef {
  /** The session id (a transcript's file stem, or a session-notes folder name). */
  id: string;
  /** Where the session's record lives, so the agent can grep it narrowly. */
  path: string;
  mtimeMs: number;
}

/** Sessions since the last consolidation, excluding the one still running. Pure. */
export function sessionsToReview(
  sessions: readonly SessionRef[],
  currentSessionId: string | undefined,
): SessionRef[] {
  return sessions
    .filter((s) => s.id !== currentSessionId)
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function checkSessionGate(input: {
  /** Already filtered by `sessionsToReview`. */
  sessions: readonly SessionRef[];
  minSessions: number;
}): GateDecision {
  const n = input.sessions.length;
  const counted = `${n} session${n === 1 ? '' : 's'} since the last consolidation`;
  if (n < input.minSessions) return stop('sessions', `${counted}; needs ${input.minSessions}`);
  return pass('sessions', counted);
}

/** What the lock file says, read once. */
export interface LockState {
  exists: boolean;
  mtimeMs: number;
  /** The PID written in it; undefined when empty or unreadable (a finished or rolled-back run). */
  holderPid: number | undefined;
}

/**
 * May we take the lock? A fresh lock whose holder is alive means a run is in progress. A lock
 * that changed since this check began (`expectedMtimeMs`) means another process started or
 * finished a run in between: taking it would run twice. Pure; `holderAlive` comes from the caller.
 */
export function decideLock(input: {
  state: LockState;
  nowMs: number;
  staleMs: number;
  holderAlive: boolean;
  /** The mtime seen when the time gate was read; undefined skips the comparison. */
  expectedMtimeMs?: number | undefined;
}): GateDecision {
  const { state } = input;
  const seen = input.expectedMtimeMs;
  if (seen !== undefined && (state.exists ? state.mtimeMs : 0) !== seen) {
    return stop(
      'lock',
      state.exists
        ? `another process took the lock at ${new Date(state.mtimeMs).toISOString()} since this check began`
        : 'the lock was removed by another process since this check began',
    );
  }
  if (!state.exists) return pass('lock', 'no lock file yet');
  const age = input.nowMs - state.mtimeMs;
  if (state.holderPid !== undefined && input.holderAlive && age < input.staleMs) {
    return stop(
      'lock',
      `PID ${state.holderPid} has been consolidating for ${formatMinutes(Math.max(0, age))}`,
    );
  }
  if (state.holderPid === undefined) return pass('lock', 'lock is free');
  return pass(
    'lock',
    input.holderAlive
      ? `lock held by PID ${state.holderPid} is stale (${formatMinutes(age)} old); taking it over`
      : `holder PID ${state.holderPid} is gone; taking the lock over`,
  );
}

function formatHours(hours: number): string {
  return `${hours.toFixed(1)} h`;
}

function formatMinutes(ms: number): string {
  const minutes = ms / 60_000;
  return minutes < 1 ? `${Math.round(ms / 1000)} s` : `${minutes.toFixed(1)} min`;
}
