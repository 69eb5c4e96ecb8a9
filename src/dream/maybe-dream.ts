import { resolve } from 'node:path';
import {
  createDreamer,
  type DreamContext,
  type DreamerOptions,
  type DreamOutcome,
  memoryScanThrottle,
  type ScanThrottleStore,
} from './dreamer.js';
import type { SessionRef } from './gates.js';
import { type SessionLister, transcriptDirectoryLister } from './sessions.js';

/** A bare listing function: session refs, or just ids (as a host's own store may keep them). */
export type ListSessionsTouchedSince = (sinceMs: number) => Promise<Array<SessionRef | string>>;

/**
 * Everything one call needs: where the memories live, where sessions come from, the model, and
 * the per-turn context. `sessions` may be a lister, a listing function, or a folder of
 * transcripts (one `*.jsonl` per session).
 */
export type MaybeDreamContext = Omit<DreamerOptions, 'sessions'> &
  DreamContext & { sessions: SessionLister | ListSessionsTouchedSince | string };

/** Ids without a record become refs without a path (the agent is told only their ids). */
function asLister(sessions: SessionLister | ListSessionsTouchedSince | string): SessionLister {
  if (typeof sessions === 'string') return transcriptDirectoryLister(sessions);
  if (typeof sessions !== 'function') return sessions;
  return {
    async listSessionsTouchedSince(sinceMs) {
      return (await sessions(sinceMs)).map((s) =>
        typeof s === 'string' ? { id: s, path: s, mtimeMs: sinceMs } : s,
      );
    },
  };
}

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
  const dreamer = createDreamer({
    ...ctx,
    sessions: asLister(ctx.sessions),
    scanThrottle: ctx.scanThrottle ?? throttleFor(ctx.memoryDir),
  });
  return dreamer.maybeDream(ctx);
}
