import { contentBlocks } from '../inject/history.js';
import type { Message } from '../llm/types.js';

/** A user message the person wrote (not only tool results or injected reminders). */
function isRealUserTurn(message: Message): boolean {
  if (message.role !== 'user') return false;
  return contentBlocks(message).some(
    (b) => b.type === 'text' && b.text.trim() !== '' && !b.text.startsWith('<system-reminder>'),
  );
}

/**
 * Tools that succeeded, and never failed, since the previous real user turn. The selector skips
 * manuals for these (the agent is using them fine) and keeps warnings; any error takes the tool
 * out again, because a struggling agent may need the docs. Pure.
 */
export function successfulToolsSinceLastTurn(messages: readonly Message[]): string[] {
  const turns: number[] = [];
  messages.forEach((m, i) => {
    if (isRealUserTurn(m)) turns.push(i);
  });
  const last = turns.at(-1);
  // When the new prompt is already the last message, look at the turn before it.
  const [from, to] =
    last === messages.length - 1 ? [turns.at(-2) ?? -1, last] : [last ?? -1, messages.length];
  const names = new Map<string, string>();
  const ok = new Set<string>();
  const failed = new Set<string>();
  for (let i = from + 1; i < to; i++) {
    for (const block of contentBlocks(messages[i]!)) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
      if (block.type === 'tool_result') {
        const name = names.get(block.tool_use_id);
        if (name === undefined) continue;
        (block.is_error ? failed : ok).add(name);
      }
    }
  }
  return [...ok].filter((n) => !failed.has(n)).sort();
}
