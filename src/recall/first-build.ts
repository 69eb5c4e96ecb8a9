/**
 * A long-running host's first build of a directory's header cache and ranker index, made in a
 * worker thread. The first build (reading every header, analysing every memory, building the index)
 * is the part that allocates: in the host's own thread its garbage collection paused the host's
 * event loop for longer than any of our slices, most of all on a loaded machine. In a worker the
 * collections are the worker's. What comes back is each directory's cache as typed arrays and
 * pieces of JSON text (`CacheTransfer`), adopted a slice at a time; the host's own scan then
 * revalidates every entry by stat (so a change made meanwhile is seen) and restores the saved
 * index, as a one-shot process restores it from the cache file.
 *
 * Only a hint that saves work: when the worker cannot start (its file is missing, as under a test
 * runner that runs the sources), fails, or the budget runs out first, the answer is false and the
 * caller builds in its own thread as before. Loaded only by hosts (`startRecall`, the MCP server's
 * warm-up), never on a one-shot hook's path.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MemoryLayer } from '../config/memory-chain.js';
import { adoptCacheTransfer, type CacheTransfer, isCacheKept } from '../memdir/header-cache.js';

/** What the worker is given. */
export interface FirstBuildRequest {
  layers: MemoryLayer[];
  persisted: boolean;
}

/** What it answers: every layer's cache, or why not. */
export type FirstBuildAnswer = { caches: CacheTransfer[] } | { error: string };

/** Next to this module: tsc's `dist/recall/`, or the bundles' `dist/cli/bundle/`. */
export const FIRST_BUILD_WORKER = new URL('./first-build-worker.js', import.meta.url);

const EXPIRY_POLL_MS = 10;

const running = new Map<string, { adopted: Promise<boolean>; unref: () => void }>();

/**
 * Build the caches of `layers` in a worker and adopt them. True when every layer's cache is now
 * kept in this process (the caller's scan will find them); false when the caller should build as
 * if this had not been tried. Two calls for the same layers at once share one worker.
 */
export async function buildFirstInWorker(
  layers: readonly MemoryLayer[],
  options: { persisted: boolean; expired: () => boolean; workerUrl?: URL },
): Promise<boolean> {
  const url = options.workerUrl ?? FIRST_BUILD_WORKER;
  const key = JSON.stringify([layers, options.persisted, url.href]);
  let run = running.get(key);
  if (run === undefined) {
    const started = startWorker(url, { layers: [...layers], persisted: options.persisted });
    const adopted = started.answer.then(adoptAll, () => false);
    const entry = { adopted, unref: started.unref };
    run = entry;
    running.set(key, entry);
    void adopted.finally(() => {
      if (running.get(key) === entry) running.delete(key);
    });
  }
  return untilExpired(run, options.expired);
}

async function adoptAll(caches: CacheTransfer[] | undefined): Promise<boolean> {
  if (caches === undefined) return false;
  let all = true;
  for (const cache of caches) {
    if (!isCacheKept(cache.dir) && !(await adoptCacheTransfer(cache))) all = false;
  }
  return all;
}

/**
 * The run's answer, or false as soon as the budget is spent: the worker then finishes unwaited
 * (it no longer keeps the process alive), and what it hands over is still adopted if no scan of
 * its directories began meanwhile.
 */
function untilExpired(
  run: { adopted: Promise<boolean>; unref: () => void },
  expired: () => boolean,
): Promise<boolean> {
  return new Promise((resolve) => {
    const giveUp = () => {
      run.unref();
      resolve(false);
    };
    if (expired()) return giveUp();
    const poll = setInterval(() => {
      if (!expired()) return;
      clearInterval(poll);
      giveUp();
    }, EXPIRY_POLL_MS);
    void run.adopted.then((ok) => {
      clearInterval(poll);
      resolve(ok);
    });
  });
}

/** The worker's caches, or undefined when it could not start, failed or answered nonsense. */
function startWorker(
  url: URL,
  request: FirstBuildRequest,
): { answer: Promise<CacheTransfer[] | undefined>; unref: () => void } {
  let unrefed = false;
  let worker: { unref(): void } | undefined;
  const unref = () => {
    unrefed = true;
    worker?.unref();
  };
  const answer = (async () => {
    if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return undefined;
    const { Worker } = await import('node:worker_threads');
    return new Promise<CacheTransfer[] | undefined>((resolve) => {
      let answered = false;
      const settle = (caches: CacheTransfer[] | undefined) => {
        if (answered) return;
        answered = true;
        resolve(caches);
        // Unwaited from now on: a host that is done does not wait for the worker to wind down.
        worker?.unref();
      };
      let started: InstanceType<typeof Worker>;
      try {
        started = new Worker(url, { workerData: request, stdout: true, stderr: true });
      } catch {
        settle(undefined);
        return;
      }
      worker = started;
      if (unrefed) started.unref();
      // Its own output is not the host's: a failure is answered by building in the host's thread.
      started.stdout.resume();
      started.stderr.resume();
      started.once('message', (message: FirstBuildAnswer) =>
        settle(
          typeof message === 'object' && message !== null && 'caches' in message
            ? Array.isArray(message.caches)
              ? message.caches
              : undefined
            : undefined,
        ),
      );
      started.once('error', () => settle(undefined));
      started.once('exit', () => settle(undefined));
    });
  })();
  return { answer, unref };
}
