/**
 * Stop: the end of a turn, translated onto the runtime's `completeTurn`: extraction over what the
 * session said since the stored cursor, session notes by their thresholds, then the consolidation
 * gates. The cursor lives in the session store and moves only when a run succeeds, so a failed or
 * killed run is retried at the next stop.
 */
import { dirname } from 'node:path';
import { type HookContext, runtimeOf } from './context.js';
import type { HookInput } from './input.js';
import { NOTICES } from './notices.js';
import type { HookOutput } from './output.js';
import { readHookTranscript } from './transcript.js';

/**
 * Run the Stop work and wait for it (Claude Code's Stop hook hands it to a detached process).
 * Returns the saved-memory notice as a `systemMessage` when extraction wrote something.
 */
export async function stopHook(input: HookInput, ctx: HookContext): Promise<HookOutput> {
  const engram = runtimeOf(ctx);
  if (engram.model === undefined) return {};
  if (input.sessionId === undefined) {
    ctx.log?.('extraction skipped: no session_id in the input');
    return {};
  }
  const transcript = await readHookTranscript(input.transcriptPath);
  // Each outcome is logged as it happens: extraction's before the notes and consolidation run.
  const session = engram.openSession({
    sessionId: input.sessionId,
    onEvent: (event) => {
      if (event.kind === 'extraction') {
        const run = event.run;
        ctx.log?.(`extraction ${run.outcome}${run.reason ? ` (${run.reason})` : ''}`);
        if (run.outcome === 'failed')
          ctx.notice?.(NOTICES.extractionFailed(run.reason ?? 'no reason given'));
      } else if (event.kind === 'backoff') {
        ctx.log?.(event.message);
        ctx.notice?.(NOTICES.extractionFailed(event.message));
      } else if (event.kind === 'notes') {
        ctx.log?.(`session notes ${event.outcome.status}: ${event.outcome.reason}`);
      } else if (event.kind === 'dream') {
        const dream = event.outcome;
        if (dream.kind === 'stopped') ctx.log?.(`consolidation not due: ${dream.reason}`);
        else if (dream.kind === 'ran') ctx.log?.(`consolidation ${dream.run.status}`);
        else ctx.log?.(`consolidation failed: ${dream.error.message}`);
      }
    },
  });
  const outcome = await session.completeTurn(
    { tools: [], messages: transcript.messages },
    input.transcriptPath ? { transcriptPath: input.transcriptPath } : {},
  );
  const run = outcome.extraction;
  if (run && !('trailing' in run)) ctx.log?.(`extraction skipped: ${run.reason}`);
  return run && 'trailing' in run && run.notice ? { systemMessage: run.notice } : {};
}

/** The folder of a hook's transcript: Claude Code's sessions of this project, for consolidation. */
export function transcriptFolderOf(input: HookInput): string[] {
  return input.transcriptPath ? [dirname(input.transcriptPath)] : [];
}
