#!/usr/bin/env node
/**
 * A fresh process the bench starts to see what a host sees. `cold <dir> <query> <nowMs>`: time one
 * recall in a process that has never recalled (modules loaded, no cache in memory or on disk).
 * `loop <dir> <query> <nowMs> <turns>`: a host whose event loop is watched by
 * `monitorEventLoopDelay` while it prefetches recall for several turns; prints the worst delay of
 * the first turn and of the later ones. Prints one JSON line.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { recall, startRecall } from '../recall/index.js';

const TURN_QUERIES = [
  'how do we roll back a canary deploy',
  'which retry timeout does the queue worker use',
  'kubelet eviction of pods on the staging cluster',
  'where is the oauth session cookie configured',
];

async function cold(dir: string, query: string, nowMs: number) {
  const started = performance.now();
  const result = await recall({ dir, query, now: nowMs });
  return { ms: performance.now() - started, selected: result.selected.length };
}

async function loop(dir: string, query: string, nowMs: number, turns: number) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  // The host's own work: a loop that ticks every 10 ms, as an agent's UI or stream would.
  const tick = setInterval(() => {}, 10);
  const worst: number[] = [];
  const times: number[] = [];
  try {
    for (let turn = 0; turn < turns; turn++) {
      const q = turn === 0 ? query : TURN_QUERIES[turn % TURN_QUERIES.length]!;
      await sleep(20); // let the previous turn's timers settle
      histogram.reset();
      histogram.enable();
      const started = performance.now();
      const handle = startRecall({ dir, query: q, now: nowMs });
      await handle.done;
      times.push(performance.now() - started);
      histogram.disable();
      if (handle.error) throw handle.error;
      worst.push(histogram.max / 1e6);
    }
  } finally {
    clearInterval(tick);
  }
  return {
    firstMaxDelayMs: worst[0] ?? 0,
    warmMaxDelayMs: Math.max(0, ...worst.slice(1)),
    firstMs: times[0] ?? 0,
    warmMs: times.slice(1),
  };
}

async function main() {
  const [mode, dir, query, now, turns] = process.argv.slice(2);
  if (!dir || !query || !now)
    throw new Error('usage: host-probe cold|loop <dir> <query> <nowMs> [turns]');
  const out =
    mode === 'loop'
      ? await loop(dir, query, Number(now), Number(turns ?? 5))
      : await cold(dir, query, Number(now));
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`host-probe: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
