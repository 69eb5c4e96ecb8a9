/**
 * Visible, bounded notices. Claude Code shows a hook's stderr to no one, so whatever degrades
 * (no model, a failed selector, a spent budget, skipped notes) reaches the user as the hook's
 * `systemMessage`: one line that says what to do, each kind at most once per session, at most one
 * line per hook. A kind raised where Claude Code discards `systemMessage` (PreCompact) waits in
 * the session's notice file for the next hook that can show it.
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type EngramEnvironment, engramHome } from '../config/index.js';
import type { RecallShape } from '../recall/index.js';
import { checkSessionId } from '../session/session-store.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { withFileLock } from '../util/file-lock.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/file-modes.js';

export type NoticeKind =
  | 'no-model'
  | 'selector-failed'
  | 'recall-timeout'
  | 'session-budget'
  | 'notes-skipped'
  | 'extraction-failed'
  | 'auto-memory-off';

export interface Notice {
  kind: NoticeKind;
  text: string;
}

interface NoticeState {
  shown: NoticeKind[];
  pending: Notice[];
}

const PREFIX = 'engram: ';

/** The one-line texts, each ending in what to do. Pure. */
export const NOTICES = {
  noModel: (hint: string): Notice => ({
    kind: 'no-model',
    text: `${PREFIX}no model is configured, so nothing from this session is saved as memory. ${hint}`,
  }),
  selectorFailed: (reason: string): Notice => ({
    kind: 'selector-failed',
    text: `${PREFIX}the recall model failed (${oneLine(reason, 120)}), so the offline ranker chose memories; run \`engram models check\` to see why.`,
  }),
  recallTimeout: (budgetMs: number): Notice => ({
    kind: 'recall-timeout',
    text: `${PREFIX}recall took longer than ${budgetMs} ms and the prompt went on without memories; a faster model (ENGRAM_MODEL) or \`--budget-ms\` on the hook helps.`,
  }),
  sessionBudget: (): Notice => ({
    kind: 'session-budget',
    text: `${PREFIX}this session's memory budget is spent, so recall is off until the next session or /compact.`,
  }),
  notesSkipped: (why: string): Notice => ({
    kind: 'notes-skipped',
    text: `${PREFIX}session notes were not updated before compaction (${oneLine(why, 120)}); configure a model (see \`engram models check\`) to keep them.`,
  }),
  extractionFailed: (why: string): Notice => ({
    kind: 'extraction-failed',
    text: `${PREFIX}extraction failed (${oneLine(why, 120)}); nothing was saved this turn. \`engram models check\` tests the model.`,
  }),
  autoMemoryOff: (settingsPath: string): Notice => ({
    kind: 'auto-memory-off',
    text: `${PREFIX}turned off Claude Code's built-in auto memory in ${settingsPath} so the session has one memory system; \`engram hook uninstall\` puts it back.`,
  }),
} as const;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The notice a recall's shape calls for, if any. Pure. */
export function recallNotice(shape: RecallShape): Notice | undefined {
  if (shape.fallbackUsed) return NOTICES.selectorFailed(shape.fallbackReason ?? 'no reason given');
  if (shape.budgetExhausted) return NOTICES.sessionBudget();
  return undefined;
}

function statePath(environment: EngramEnvironment, sessionId: string): string {
  return join(engramHome(environment), 'hooks', 'notices', `${checkSessionId(sessionId)}.json`);
}

/** The session's notice state; a missing or unreadable-as-JSON file is an empty one. */
function readState(path: string): NoticeState {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<NoticeState>;
    return {
      shown: Array.isArray(value.shown) ? value.shown : [],
      pending: Array.isArray(value.pending) ? value.pending : [],
    };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || error instanceof SyntaxError)
      return { shown: [], pending: [] };
    throw error;
  }
}

/** The state with raised notices queued, each kind once per session. Pure. */
export function queueNotices(state: NoticeState, raised: readonly Notice[]): NoticeState {
  const known = new Set<NoticeKind>([...state.shown, ...state.pending.map((n) => n.kind)]);
  const pending = [...state.pending];
  for (const notice of raised) {
    if (known.has(notice.kind)) continue;
    known.add(notice.kind);
    pending.push(notice);
  }
  return { shown: state.shown, pending };
}

/** Take the oldest queued notice: at most one line per hook, never a wall of warnings. Pure. */
export function takeNotice(state: NoticeState): { state: NoticeState; show?: string } {
  const [first, ...rest] = state.pending;
  if (first === undefined) return { state };
  return { state: { shown: [...state.shown, first.kind], pending: rest }, show: first.text };
}

/**
 * Record `raised` for the session and return the line to show now (undefined: nothing new).
 * `canShow: false` only queues (for events whose systemMessage Claude Code drops).
 */
export async function sessionNotice(
  environment: EngramEnvironment,
  sessionId: string | undefined,
  raised: readonly Notice[],
  options: { canShow?: boolean } = {},
): Promise<string | undefined> {
  // Without a session id there is no "once per session": show the first raised line as it is.
  if (sessionId === undefined) return options.canShow === false ? undefined : raised[0]?.text;
  const path = statePath(environment, sessionId);
  // Nothing raised and nothing waiting (every prompt of a healthy session): nothing to change, so
  // no lock. The file is only ever replaced whole (renamed into place), so this one read sees a
  // state some writer left, the same answer as reading it under the lock a moment earlier.
  if (raised.length === 0 && readState(path).pending.length === 0) return undefined;
  await mkdir(join(path, '..'), { recursive: true, mode: PRIVATE_DIR_MODE });
  return withFileLock(
    `${path}.lock`,
    async () => {
      const state = readState(path);
      const queued = queueNotices(state, raised);
      const next = options.canShow === false ? { state: queued } : takeNotice(queued);
      if (JSON.stringify(next.state) !== JSON.stringify(state))
        await writeFileAtomic(path, `${JSON.stringify(next.state)}\n`, {
          mode: PRIVATE_FILE_MODE,
        });
      return 'show' in next ? next.show : undefined;
    },
    { timeoutMs: 2_000, staleMs: 30_000 },
  );
}
