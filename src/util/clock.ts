import { setTimeout as delay } from 'node:timers/promises';
import { EngramError } from './errors.js';

/**
 * The one clock engram's I/O reads: epoch milliseconds, and a way to wait. Components that need time
 * take `clock?: Clock` (default `systemClock`); pure policies never read a clock, they take `nowMs`.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Wait `ms` (a test clock may simply advance). */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: (ms) => delay(ms) };

/**
 * A clock standing at `at` (epoch ms, a Date or an ISO string) that moves only when slept on: for
 * tests, replays and "as of" runs (`engram recall --now`).
 */
export function fixedClock(at: number | Date | string): Clock {
  let t = typeof at === 'number' ? at : new Date(at).getTime();
  if (Number.isNaN(t)) throw new EngramError('invalid_input', `not a valid time: ${String(at)}`);
  return {
    now: () => t,
    sleep: async (ms) => {
      t += Math.max(0, ms);
    },
  };
}

/** The clock's time as a Date (for prompts and ISO stamps). */
export function clockDate(clock: Clock): Date {
  return new Date(clock.now());
}

/** The `now` option older entry points took: a function returning a Date or epoch ms, or one instant. */
export type LegacyNow = (() => Date | number) | Date | number;

/**
 * The clock an entry point runs on: `clock` when given, else a deprecated `now` read through it
 * (so the rest of engram sees one shape), else the system clock.
 */
export function resolveClock(options: { clock?: Clock; now?: LegacyNow }): Clock {
  if (options.clock) return options.clock;
  const now = options.now;
  if (now === undefined) return systemClock;
  if (typeof now === 'function') {
    return { now: () => new Date(now()).getTime(), sleep: systemClock.sleep };
  }
  return fixedClock(now);
}
