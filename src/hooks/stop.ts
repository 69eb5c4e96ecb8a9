/**
 * Stop: extraction over what the session said since the last run. The cursor (the id of the last
 * message already considered) lives per session in `$ENGRAM_HOME/hooks/cursors/`, and moves only
 * when a run succeeds, so a failed or killed run is retried at the next stop.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { engramHome, sanitizeProjectPath } from '../config/index.js';
import {
  createDreamer,
  type DreamOutcome,
  fileScanThrottle,
  transcriptDirectoryLister,
} from '../dream/index.js';
import { createExtractor, type ExtractionRun, fitToContext } from '../extract/index.js';
import { FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import type { Message } from '../llm/types.js';
import { checkSessionId } from '../session/session-store.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { systemClock } from '../util/clock.js';
import { errnoCode } from '../util/errors.js';
import { withFileLock } from '../util/file-lock.js';
import type { HookContext } from './events.js';
import type { HookInput } from './input.js';
import { readHookTranscript } from './transcript.js';

/** A Claude Code session can be far longer than an extraction needs; keep the newest turns. */
export const STOP_MAX_CONTEXT_TOKENS = 60_000;

export interface StopCursor {
  cursor?: string;
  transcriptPath?: string;
  updatedAt?: string;
}

export function stopCursorPath(ctx: HookContext, sessionId: string): string {
  return join(engramHome(ctx.environment), 'hooks', 'cursors', `${checkSessionId(sessionId)}.json`);
}

async function readStopCursor(path: string): Promise<StopCursor> {
  try {
    const data: unknown = JSON.parse(await readFile(path, 'utf8'));
    return typeof data === 'object' && data !== null ? (data as StopCursor) : {};
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || error instanceof SyntaxError) return {};
    throw error;
  }
}

function startsTurn(message: Message): boolean {
  return message.role === 'user' && message.content.some((b) => b.type === 'text');
}

/**
 * The messages an extraction should see: those after the cursor, starting at a user turn (never
 * at a tool result cut from its call), trimmed from the front to `maxTokens` by the extractor's
 * own `fitToContext`. A cursor no longer in the transcript (rewound, compacted away) means
 * everything is new. Pure.
 */
export function messagesSinceCursor(
  messages: readonly Message[],
  cursor: string | undefined,
  maxTokens = STOP_MAX_CONTEXT_TOKENS,
): Message[] {
  const at = cursor === undefined ? -1 : messages.findIndex((m) => m.id === cursor);
  let start = at + 1;
  while (start < messages.length && !startsTurn(messages[start]!)) start++;
  return fitToContext(messages.slice(start), maxTokens).messages;
}

export type StopOutcome =
  | { status: 'skipped'; reason: string }
  | { status: 'ran'; run: ExtractionRun };

export async function runStopExtraction(input: HookInput, ctx: HookContext): Promise<StopOutcome> {
  if (ctx.model === undefined) return { status: 'skipped', reason: 'no model configured' };
  if (input.sessionId === undefined)
    return { status: 'skipped', reason: 'no session_id in the input' };
  const model = ctx.model;
  const path = stopCursorPath(ctx, input.sessionId);
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  // Two stops close together (fast turns) run one after the other, the second from the new cursor.
  return withFileLock(
    `${path}.lock`,
    async (): Promise<StopOutcome> => {
      const stored = await readStopCursor(path);
      const transcript = await readHookTranscript(input.transcriptPath);
      const messages = messagesSinceCursor(transcript.messages, stored.cursor);
      if (messages.length === 0) return { status: 'skipped', reason: 'no new messages' };
      const extractor = createExtractor({
        memoryDir: ctx.memoryDir,
        model,
        ...(ctx.clock ? { clock: ctx.clock } : {}),
      });
      const run = await extractor.extractNow({ tools: FILE_TOOL_DEFINITIONS, messages });
      if (run.outcome !== 'failed' && run.cursorAfter !== undefined) {
        const next: StopCursor = {
          cursor: run.cursorAfter,
          updatedAt: new Date((ctx.clock ?? systemClock).now()).toISOString(),
          ...(input.transcriptPath ? { transcriptPath: input.transcriptPath } : {}),
        };
        await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      }
      return { status: 'ran', run };
    },
    { timeoutMs: 120_000, staleMs: 600_000 },
  );
}

/**
 * After extraction, the consolidation gates (cheap: most calls stop at the time gate). Sessions
 * are Claude Code's transcripts of this project, the folder the hook's transcript lives in; the
 * running session is never counted.
 */
export async function runStopConsolidation(
  input: HookInput,
  ctx: HookContext,
  options: { dreamEnabled?: boolean } = {},
): Promise<DreamOutcome | undefined> {
  if (ctx.model === undefined || input.transcriptPath === undefined) return undefined;
  const dreamer = createDreamer({
    memoryDir: ctx.memoryDir,
    model: ctx.model,
    sessions: transcriptDirectoryLister(dirname(input.transcriptPath)),
    // Each Stop hook is a new process: the throttle lives on disk, one file per memory directory.
    scanThrottle: fileScanThrottle(
      join(engramHome(ctx.environment), 'hooks', 'dream-scan', sanitizeProjectPath(ctx.memoryDir)),
    ),
    ...(options.dreamEnabled === false ? { dreamEnabled: false } : {}),
    ...(ctx.clock ? { clock: ctx.clock } : {}),
  });
  return dreamer.maybeDream(input.sessionId ? { currentSessionId: input.sessionId } : {});
}
