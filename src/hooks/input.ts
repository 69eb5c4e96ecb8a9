import { EngramError } from '../util/errors.js';

/** The events engram handles, by their CLI names. */
export const HOOK_EVENTS = {
  'session-start': 'SessionStart',
  'user-prompt-submit': 'UserPromptSubmit',
  stop: 'Stop',
  'pre-compact': 'PreCompact',
} as const;

export type HookCommandName = keyof typeof HOOK_EVENTS;
export type HookEventName = (typeof HOOK_EVENTS)[HookCommandName];

/**
 * What Claude Code sends on stdin. Only the fields engram uses are typed; everything else is kept
 * in `raw`. Fields may be missing depending on version and event, so all are optional.
 */
export interface HookInput {
  sessionId?: string;
  transcriptPath?: string;
  cwd?: string;
  hookEventName?: string;
  /** UserPromptSubmit. */
  prompt?: string;
  /** SessionStart: startup | resume | clear | compact | fork. */
  source?: string;
  /** PreCompact: manual | auto. */
  trigger?: string;
  /** Stop: true when Claude Code is already continuing because of a stop hook. */
  stopHookActive?: boolean;
  /** Stop: the final reply, which may be newer than the transcript on disk. */
  lastAssistantMessage?: string;
  /** Inside a sub-agent (or `claude --agent`): the agent's type, whose memory is its own. */
  agentType?: string;
  raw: Record<string, unknown>;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Parse the hook JSON. Empty input is an empty object (a hook run by hand); garbage is an error. Pure. */
export function parseHookInput(text: string): HookInput {
  if (text.trim() === '') return { raw: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EngramError('invalid_input', 'The hook input on stdin is not valid JSON.', {
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EngramError('invalid_input', 'The hook input on stdin must be a JSON object.');
  }
  const raw = value as Record<string, unknown>;
  const input: HookInput = { raw };
  const fields: Array<[keyof HookInput, string]> = [
    ['sessionId', 'session_id'],
    ['transcriptPath', 'transcript_path'],
    ['cwd', 'cwd'],
    ['hookEventName', 'hook_event_name'],
    ['prompt', 'prompt'],
    ['source', 'source'],
    ['trigger', 'trigger'],
    ['lastAssistantMessage', 'last_assistant_message'],
    ['agentType', 'agent_type'],
  ];
  for (const [key, name] of fields) {
    const v = str(raw[name]);
    if (v !== undefined) (input as unknown as Record<string, unknown>)[key] = v;
  }
  if (raw.stop_hook_active === true) input.stopHookActive = true;
  return input;
}
