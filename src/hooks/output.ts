import type { HookEventName } from './input.js';
import { contextCutNote } from './prompts.js';

/** Claude Code caps hook strings at 10,000 characters and replaces longer ones by a file preview. */
export const HOOK_CONTEXT_MAX_CHARS = 10_000;

/**
 * Fit text into `max` characters, cutting at a line boundary and saying what was left out, so
 * Claude Code never swaps it for a preview. Pure.
 */
export function capHookContext(text: string, max = HOOK_CONTEXT_MAX_CHARS, hint = ''): string {
  if (text.length <= max) return text;
  const note = (omitted: number) => contextCutNote(omitted, hint);
  const room = Math.max(0, max - note(text.length).length);
  let cut = text.lastIndexOf('\n', room);
  if (cut <= 0) cut = room;
  const kept = text.slice(0, cut);
  return `${kept}${note(text.length - kept.length)}`.slice(0, max);
}

export interface HookOutput {
  hookSpecificOutput?: { hookEventName: HookEventName; additionalContext: string };
  systemMessage?: string;
}

/** The JSON for an event that adds context (SessionStart, UserPromptSubmit); `{}` when empty. */
export function contextOutput(event: HookEventName, context: string): HookOutput {
  if (context.trim() === '') return {};
  return {
    hookSpecificOutput: { hookEventName: event, additionalContext: capHookContext(context) },
  };
}
