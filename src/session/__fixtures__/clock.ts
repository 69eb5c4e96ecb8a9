import type { Clock } from '../../util/clock.js';

/** A clock whose sleep advances time instantly; records every sleep. */
export function fakeClock(start = 1_800_000_000_000): Clock & { sleeps: number[]; onSleep?: () => void } {
  let t = start;
  const clock: Clock & { sleeps: number[]; onSleep?: () => void } = {
    sleeps: [],
    now: () => t,
    sleep: async (ms) => {
      clock.sleeps.push(ms);
      t += ms;
      clock.onSleep?.();
    },
  };
  return clock;
}
