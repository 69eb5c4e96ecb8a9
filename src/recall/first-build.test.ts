import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryLayer } from '../config/memory-chain.js';
import {
  clearHeaderCaches,
  isCacheKept,
  TIMESTAMP_GRANULARITY_MS,
} from '../memdir/header-cache.js';
import { loadCandidates } from './candidates.js';
import { buildFirstInWorker } from './first-build.js';
import { recall } from './recall.js';

// The worker runs compiled code (a worker thread cannot run the sources a test runner serves):
// tsc's output and the CLI bundle's copy, both made by `npm run build`.
const ROOT = new URL('../../', import.meta.url);
const TSC_WORKER = new URL('dist/recall/first-build-worker.js', ROOT);
const BUNDLED_WORKER = new URL('dist/cli/bundle/first-build-worker.js', ROOT);

const NOW = Date.parse('2026-11-29T12:00:00Z');
const DAY = 86_400_000;
const TOPICS = [
  'deploy canary rollback staging',
  'kubelet eviction pods memory pressure',
  'oauth session cookie login',
  'queue worker retry timeout',
  'vitest snapshot flaky fixture',
];
const QUERIES = [
  'why does the kubelet keep evicting pods',
  'how do we roll back a canary deploy',
  'what is the capital of France',
];

function writeMemories(dir: string, count: number, name: string): void {
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    const type = ['user', 'feedback', 'project', 'reference'][i % 4];
    const path = join(dir, `${name}-${String(i).padStart(4, '0')}.md`);
    writeFileSync(
      path,
      `---\nname: ${name} ${i}\ndescription: ${topic} ${name} ${i}\ntype: ${type}\n---\nRule ${i} about ${topic}.\n**Why:** reasons.\n**How to apply:** always.\n`,
    );
    const mtime = (NOW - (i % 90) * DAY) / 1000;
    utimesSync(path, mtime, mtime);
  }
}

const never = () => false;

/** Everything the turn shows: the injected bytes, and the whole ranking behind them. */
async function turn(layers: readonly MemoryLayer[], query: string) {
  const set = await loadCandidates(layers, {
    query,
    nowMs: NOW,
    isSurfaced: () => false,
    persistedCache: false,
  });
  const ranking = set.ranker.rank(query, { nowMs: NOW, limit: Infinity, requireOverlap: false });
  const result = await recall({
    dir: layers[0]!.dir,
    layers,
    query,
    now: NOW,
    persistedCache: false,
  });
  return {
    read: set.read,
    complete: set.complete,
    ranking,
    text: result.text,
    done: result.complete,
  };
}

/** The same turn with the build made in this thread, from no cache at all. */
async function inThread(layers: readonly MemoryLayer[], query: string) {
  clearHeaderCaches();
  const out = await turn(layers, query);
  clearHeaderCaches();
  return out;
}

describe("a host's first build in a worker thread", () => {
  let project: MemoryLayer[];
  let chain: MemoryLayer[];
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-first-build-'));
    const user = mkdtempSync(join(tmpdir(), 'engram-first-build-user-'));
    writeMemories(dir, 240, 'note');
    writeMemories(user, 30, 'mine');
    project = [{ layer: 'project', dir, trusted: true }];
    chain = [...project, { layer: 'user', dir: user, trusted: true }];
    // Old enough to be trusted by stat, so the worker's entries are used rather than read again.
    await sleep(TIMESTAMP_GRANULARITY_MS + 200);
  });

  it('is built by the compiled worker (run `npm run build` first)', () => {
    expect(existsSync(TSC_WORKER)).toBe(true);
    expect(existsSync(BUNDLED_WORKER)).toBe(true);
  });

  for (const [name, worker] of [
    ['tsc output', TSC_WORKER],
    ['CLI bundle', BUNDLED_WORKER],
  ] as const) {
    it(`ranks and injects exactly as a build in the host's thread, one layer or two (${name})`, async () => {
      for (const layers of [project, chain]) {
        for (const query of QUERIES) {
          const expected = await inThread(layers, query);
          const built = await buildFirstInWorker(layers, {
            persisted: false,
            expired: never,
            workerUrl: worker,
          });
          expect(built).toBe(true);
          for (const l of layers) expect(isCacheKept(l.dir)).toBe(true);
          const adopted = await turn(layers, query);
          // Every header came from the worker's cache: this thread read none of the files.
          expect(adopted.read).toBe(0);
          expect(expected.read).toBeGreaterThan(0);
          expect(adopted.complete).toBe(true);
          expect(adopted.done).toBe(true);
          expect(adopted.ranking).toEqual(expected.ranking);
          expect(adopted.text).toBe(expected.text);
          clearHeaderCaches();
        }
      }
    });
  }

  it('leaves the build to the host thread when the worker cannot start, fails or answers nonsense', async () => {
    const scripts = mkdtempSync(join(tmpdir(), 'engram-first-build-workers-'));
    const failing = join(scripts, 'failing.mjs');
    writeFileSync(failing, "throw new Error('the worker broke');\n");
    const nonsense = join(scripts, 'nonsense.mjs');
    writeFileSync(
      nonsense,
      "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage({ caches: [{ dir: 42 }] });\n",
    );
    const crashing = join(scripts, 'crashing.mjs');
    writeFileSync(crashing, 'process.exit(3);\n');
    const workers = [
      pathToFileURL(join(scripts, 'missing.mjs')),
      pathToFileURL(failing),
      pathToFileURL(nonsense),
      pathToFileURL(crashing),
    ];
    const query = QUERIES[0]!;
    const expected = await inThread(project, query);
    for (const workerUrl of workers) {
      clearHeaderCaches();
      const built = await buildFirstInWorker(project, {
        persisted: false,
        expired: never,
        workerUrl,
      });
      expect(built).toBe(false);
      expect(isCacheKept(project[0]!.dir)).toBe(false);
      const fallback = await turn(project, query);
      expect(fallback.read).toBeGreaterThan(0);
      expect(fallback.ranking).toEqual(expected.ranking);
      expect(fallback.text).toBe(expected.text);
    }
    clearHeaderCaches();
  });

  it('stops waiting for the worker once the budget is spent', async () => {
    const scripts = mkdtempSync(join(tmpdir(), 'engram-first-build-slow-'));
    const slow = join(scripts, 'slow.mjs');
    // Never answers; ends by itself a little later so nothing is left running.
    writeFileSync(slow, 'setTimeout(() => {}, 3000);\n');
    clearHeaderCaches();
    let checks = 0;
    const built = await buildFirstInWorker(project, {
      persisted: false,
      expired: () => ++checks > 3,
      workerUrl: pathToFileURL(slow),
    });
    expect(built).toBe(false);
    expect(checks).toBeGreaterThan(3);
    expect(isCacheKept(project[0]!.dir)).toBe(false);
  });
});
