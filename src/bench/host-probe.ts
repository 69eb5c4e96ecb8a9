#!/usr/bin/env node
/**
 * A fresh process the bench starts to see what a host sees. `cold <dir> <query> <nowMs>`: time one
 * recall in a process that has never recalled (modules loaded, no cache in memory or on disk), as a
 * one-shot process (the in-process hook, a CLI command) makes it: file calls synchronous
 * (util/process-kind.ts). `cold-library` the same as a library caller's process makes it (file
 * calls through the thread pool, long work sliced).
 * `floor <dir>`: time the filesystem floor once in the same kind of fresh process, the honest
 * baseline for a cold recall (a fresh process's first readdir, stats and reads cost more than a
 * warm one's: its code is not compiled yet).
 * `loop <dir> <query> <nowMs> <turns>`: a host whose event loop is watched by
 * `monitorEventLoopDelay` while it prefetches recall for several turns; prints the worst delay of
 * the first turn and of the later ones. Prints one JSON line.
 */
import { openSync, readSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { recall, startRecall } from '../recall/index.js';
import { markOneShotProcess } from '../util/process-kind.js';
import { filesystemFloor } from './floor.js';

const TURN_QUERIES = [
  'how do we roll back a canary deploy',
  'which retry timeout does the queue worker use',
  'kubelet eviction of pods on the staging cluster',
  'where is the oauth session cookie configured',
];

function coldFloor(dir: string) {
  const started = performance.now();
  const bytes = filesystemFloor(dir);
  return { ms: performance.now() - started, bytes };
}

async function cold(dir: string, query: string, nowMs: number) {
  const started = performance.now();
  const result = await recall({ dir, query, now: nowMs });
  return { ms: performance.now() - started, selected: result.selected.length };
}

/**
 * CPU time the calling thread has run, in ms: the main thread's own (its code and its share of
 * garbage collection), from `/proc/thread-self/schedstat` on Linux; elsewhere the whole process's
 * (`process.cpuUsage`), which also counts other threads such as a worker's.
 */
function threadCpuClock(): () => number {
  try {
    const fd = openSync('/proc/thread-self/schedstat', 'r');
    const buffer = Buffer.alloc(128);
    const read = () => {
      const n = readSync(fd, buffer, 0, buffer.length, 0);
      return Number(buffer.toString('latin1', 0, n).split(' ')[0]) / 1e6;
    };
    if (Number.isFinite(read())) return read;
  } catch {
    // not Linux, or no schedstat: the process's time instead
  }
  return () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
}

const threadCpu = threadCpuClock();

/**
 * While `work` runs: the worst event-loop delay (`monitorEventLoopDelay`), and the most CPU time
 * the main thread spent between two turns of the loop. On a loaded machine the first also counts
 * time spent waiting for a core; the second counts only time spent running, so it shows the
 * longest stretch of our own work (or garbage collection) that kept the loop from turning.
 */
async function worstDelay(work: () => Promise<unknown>): Promise<{ delay: number; cpu: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let last = threadCpu();
  let cpu = 0;
  const ticker = setInterval(() => {
    const now = threadCpu();
    cpu = Math.max(cpu, now - last);
    last = now;
  }, 1);
  histogram.enable();
  try {
    await work();
  } finally {
    histogram.disable();
    clearInterval(ticker);
  }
  return { delay: histogram.max / 1e6, cpu };
}

async function loop(dir: string, query: string, nowMs: number, turns: number) {
  // The host's own work: a loop that ticks every 10 ms, as an agent's UI or stream would.
  const tick = setInterval(() => {}, 10);
  const worst: { delay: number; cpu: number }[] = [];
  const idle: number[] = [];
  const times: number[] = [];
  try {
    for (let turn = 0; turn < turns; turn++) {
      const q = turn === 0 ? query : TURN_QUERIES[turn % TURN_QUERIES.length]!;
      let ms = 0;
      worst.push(
        await worstDelay(async () => {
          const started = performance.now();
          const handle = startRecall({ dir, query: q, now: nowMs });
          await handle.done;
          ms = performance.now() - started;
          if (handle.error) throw handle.error;
        }),
      );
      times.push(ms);
      // The same host doing nothing for as long: what the machine's load alone costs the loop
      // (on a busy machine the process waits for a core; no code of ours runs then).
      idle.push((await worstDelay(() => sleep(Math.max(20, ms)))).delay);
    }
  } finally {
    clearInterval(tick);
  }
  const later = worst.slice(1);
  return {
    firstMaxDelayMs: worst[0]?.delay ?? 0,
    warmMaxDelayMs: Math.max(0, ...later.map((w) => w.delay)),
    firstMaxCpuStallMs: worst[0]?.cpu ?? 0,
    warmMaxCpuStallMs: Math.max(0, ...later.map((w) => w.cpu)),
    idleMaxDelayMs: Math.max(0, ...idle),
    firstMs: times[0] ?? 0,
    warmMs: times.slice(1),
  };
}

async function main() {
  const [mode, dir, query, now, turns] = process.argv.slice(2);
  if (mode === 'floor' && dir) {
    process.stdout.write(`${JSON.stringify(coldFloor(dir))}\n`);
    return;
  }
  if (!dir || !query || !now)
    throw new Error(
      'usage: host-probe cold|cold-library|loop <dir> <query> <nowMs> [turns] | floor <dir>',
    );
  if (mode === 'cold') markOneShotProcess();
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
