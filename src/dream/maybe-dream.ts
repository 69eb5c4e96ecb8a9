import { resolve } from 'node:path';
import {
  createDreamer,
  type DreamContext,
  type DreamerOptions,
  type DreamOutcome,
  memoryScanThrottle,
  type ScanThrottleStore,
} from './dreamer.js';
import { type SessionLister, transcriptDirectoryLister } from './sessions.js';

/**
 * Everything one call needs: where the memories live, where sessions come from, the model, and
 * the per-turn context. `sessions` may be a folder of transcripts (one `*.jsonl` per session).
 */
export type MaybeDreamContext = Omit<DreamerOptions, 'sessions'> &
  DreamContext & { sessions: SessionLister | string };

/**
 * The scan throttle must outlive a single call, or every turn past the time gate would rescan the
 * sessions. A host calling the function form keeps no dreamer, so the throttle is kept here, one
 * per memory directory for the life of the process (in memory, as the design asks).
 */
const throttles = new Map<string, ScanThrottleStore>();

function throttleFor(memoryDir: string): ScanThrottleStore {
  const key = resolve(memoryDir);
  let store = throttles.get(key);
  if (!store) {
    store = memoryScanThrottle();
    throttles.set(key, store);
  }
  return store;
}

/**
 * The function form of `createDreamer(options).maybeDream(context)`, for a host that calls it at
 * the end of each turn without keeping a dreamer: the gates run in cost order (enabled → time →
 * scan throttle → sessions → lock) and a run happens only when all pass. Never rejects.
 */
export function maybeDream(ctx: MaybeDreamContext): Promise<DreamOutcome> {
  const sessions =
    typeof ctx.sessions === 'string' ? transcriptDirectoryLister(ctx.sessions) : ctx.sessions;
  const dreamer = createDreamer({
    ...ctx,
    sessions,
    scanThrottle: ctx.scanThrottle ?? throttleFor(ctx.memoryDir),
  });
  return dreamer.maybeDream(ctx);
}
