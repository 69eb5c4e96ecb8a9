/**
 * How many files a directory walk keeps open at once. Small on purpose: a scan of 20,000
 * memories must work under `ulimit -n 256`, beside the descriptors the host already holds
 * (an MCP server's pipes, a hook's stdin), and the libuv threadpool has only 4 threads anyway.
 */
export const FILE_CONCURRENCY = 16;

/**
 * `Promise.all(items.map(fn))` with at most `limit` calls in flight, results in input order.
 * The first rejection rejects the whole map (like `Promise.all`); calls already started finish
 * on their own, none new is started.
 */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
