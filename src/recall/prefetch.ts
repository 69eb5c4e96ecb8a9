import { EngramError } from '../util/errors.js';
import { markLongRunningHost } from './candidates.js';
import { type RecallOptions, type RecallResult, recall } from './recall.js';

/** Node ≥ 20.4 defines Symbol.dispose; older 20.x get the registered symbol polyfills use. */
const DISPOSE: typeof Symbol.dispose =
  (Symbol as { dispose?: typeof Symbol.dispose }).dispose ??
  (Symbol.for('Symbol.dispose') as typeof Symbol.dispose);

/** Works with `using handle = startRecall(…)`: leaving the scope disposes it. */
export interface RecallHandle extends Disposable {
  /** True once recall finished (with a result or an error). */
  readonly settled: boolean;
  /** The error recall ended with, if any (it never reaches the agent loop as an exception). */
  readonly error: unknown;
  /**
   * The result, exactly once, if recall has settled; otherwise undefined. Never waits: call it at
   * each loop iteration and inject whatever it returns.
   */
  poll(): RecallResult | undefined;
  /** Resolves when recall settles (for hosts that can wait, e.g. one-shot CLIs; never the loop). */
  readonly done: Promise<void>;
  /** Cancel an unfinished recall; later polls return undefined. */
  dispose(): void;
}

/**
 * Start recall for one user turn and return at once. Fire it once per user turn (the query does
 * not change within the turn), then `poll()` after each model/tool iteration: the memories arrive
 * in whichever iteration comes after they are ready, or not at all for that turn. The agent loop
 * is never slowed by the selector.
 *
 * @example
 * const handle = startRecall({ dir, query, messages, model });
 * try {
 *   while (agentIsWorking) {
 *     const recalled = handle.poll();
 *     if (recalled?.text) attach(recalled.text);
 *     await step();
 *   }
 * } finally {
 *   handle.dispose();
 * }
 */
export function startRecall(options: RecallOptions): RecallHandle {
  markLongRunningHost();
  const controller = new AbortController();
  const outer = options.signal;
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let settled = false;
  let consumed = false;
  let disposed = false;
  let result: RecallResult | undefined;
  let error: unknown;
  const done = recall({ ...options, signal: controller.signal }).then(
    (value) => {
      result = value;
    },
    (reason: unknown) => {
      error = reason;
    },
  );
  const finished = done.finally(() => {
    settled = true;
    outer?.removeEventListener('abort', onAbort);
  });
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    if (!settled) controller.abort(new EngramError('aborted', 'recall handle disposed'));
  };
  return {
    get settled() {
      return settled;
    },
    get error() {
      return error;
    },
    poll() {
      if (!settled || consumed || disposed || result === undefined) return undefined;
      consumed = true;
      return result;
    },
    done: finished,
    dispose,
    [DISPOSE]: dispose,
  };
}
