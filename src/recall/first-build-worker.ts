/**
 * The worker thread of `first-build.ts`: the same first recall a host would make in its own
 * thread (the same scan, through the same confinement, the same analysis and index, the cache
 * file written the same way), then every layer's cache handed back as a transfer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { cacheTransferOf, directoryCache } from '../memdir/header-cache.js';
import { loadCandidates } from './candidates.js';
import type { FirstBuildAnswer, FirstBuildRequest } from './first-build.js';

const request = workerData as FirstBuildRequest;

async function build(): Promise<{ answer: FirstBuildAnswer; buffers: ArrayBuffer[] }> {
  await loadCandidates(request.layers, {
    query: '',
    nowMs: Date.now(),
    isSurfaced: () => false,
    ...(request.persisted ? {} : { persistedCache: false }),
  });
  const caches = [];
  const buffers: ArrayBuffer[] = [];
  for (const layer of request.layers) {
    const made = await cacheTransferOf(directoryCache(layer.dir));
    caches.push(made.transfer);
    buffers.push(...made.buffers);
  }
  return { answer: { caches }, buffers };
}

build().then(
  ({ answer, buffers }) => parentPort?.postMessage(answer, buffers),
  (error: unknown) => parentPort?.postMessage({ error: String(error) } satisfies FirstBuildAnswer),
);
