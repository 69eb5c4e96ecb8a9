/**
 * "While you were away": a 1-3 sentence recap from the notes and the last ~30 messages. The
 * messages are rendered as text inside one request, so no tool pairing can make it invalid and a
 * small, cheap model is enough.
 */
import type { ContentBlock, LanguageModel, Message } from '../llm/types.js';
import { EngramError } from '../util/errors.js';
import { buildAwaySummaryPrompt } from './prompts.js';

export const AWAY_SUMMARY_MESSAGES = 30;
const MAX_BLOCK_CHARS = 1_500;
// Tool output is the least useful part of a recap; keep just enough to see what happened.
const MAX_RESULT_CHARS = 300;

export interface AwaySummaryOptions {
  model: LanguageModel;
  recentMessages?: number;
  signal?: AbortSignal;
}

function clip(text: string, max = MAX_BLOCK_CHARS): string {
  return text.length > max ? `${text.slice(0, max)} […]` : text;
}

function renderBlock(block: ContentBlock): string | undefined {
  switch (block.type) {
    case 'text':
      return clip(block.text);
    case 'tool_use':
      return `[called ${block.name} ${clip(JSON.stringify(block.input ?? null))}]`;
    case 'tool_result': {
      const text =
        typeof block.content === 'string'
          ? block.content
          : block.content.map((b) => b.text).join('\n');
      return `[${block.is_error ? 'tool error' : 'tool result'}: ${clip(text, MAX_RESULT_CHARS)}]`;
    }
    case 'thinking':
      // Private reasoning adds length, not facts the user needs in a recap.
      return undefined;
  }
}

/** Plain-text rendering of messages, one `role: text` paragraph each. */
export function renderRecentMessages(messages: readonly Message[]): string {
  return messages
    .map((m) => {
      const parts = m.content.map(renderBlock).filter((p): p is string => p !== undefined);
      return parts.length ? `${m.role}: ${parts.join('\n')}` : undefined;
    })
    .filter((p): p is string => p !== undefined)
    .join('\n\n');
}

/** Keep at most three sentences: the recap is a glance, not a report. */
export function limitSentences(text: string, max = 3): string {
  // A boundary is end punctuation, a space, then a capital: "v1.2.3" and "src/a.ts" stay whole.
  const sentences = text
    .trim()
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[A-Z"'(`[])/);
  return sentences.slice(0, max).join(' ').trim();
}

/** Ask the model for a short "where were we" for a user coming back to the session. */
export async function awaySummary(
  history: readonly Message[],
  notes: string | undefined,
  options: AwaySummaryOptions,
): Promise<string> {
  const recent = history.slice(-(options.recentMessages ?? AWAY_SUMMARY_MESSAGES));
  const prompt = buildAwaySummaryPrompt(notes, renderRecentMessages(recent));
  const response = await options.model.generate({
    tools: [],
    messages: [{ id: 'away-summary', role: 'user', content: [{ type: 'text', text: prompt }] }],
    maxTokens: 300,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = response.message.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join(' ');
  const summary = limitSentences(text);
  if (!summary) throw new EngramError('model_error', 'the model returned an empty away summary');
  return summary;
}
