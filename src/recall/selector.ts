import { randomUUID } from 'node:crypto';
import type { LanguageModel, Message } from '../llm/types.js';
import { formatManifest } from '../memdir/manifest.js';
import type { MemoryHeader } from '../memdir/types.js';
import { EngramError } from '../util/errors.js';
import { MAX_RECALLED } from './offline-ranker.js';
import {
  SELECT_TOOL_NAME,
  SELECTOR_SYSTEM_PROMPT,
  selectorUserMessage,
  selectToolDefinition,
} from './prompts.js';

/** A selector call runs while the agent works; past this it is abandoned for the offline ranker. */
export const DEFAULT_SELECTOR_TIMEOUT_MS = 10_000;
const SELECTOR_MAX_TOKENS = 512;

export interface ModelSelectOptions {
  query: string;
  candidates: readonly MemoryHeader[];
  toolsInUse?: readonly string[];
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Ask the model which candidates clearly help. The answer is constrained to file names from the
 * manifest (a tool whose schema enumerates them, or a bare JSON array as a fallback); names it
 * invents are dropped, duplicates collapsed, and at most five kept. Throws when the call fails,
 * times out, or the answer cannot be read; the caller falls back to the offline ranker.
 */
export async function selectWithModel(
  model: LanguageModel,
  options: ModelSelectOptions,
): Promise<string[]> {
  if (options.candidates.length === 0) return [];
  const files = options.candidates.map((c) => c.file);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SELECTOR_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) controller.abort(options.signal.reason);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new EngramError('model_error', `the memory selector did not answer within ${timeoutMs} ms`),
      );
    }, timeoutMs);
  });
  const message: Message = {
    id: `recall-${randomUUID()}`,
    role: 'user',
    content: [
      {
        type: 'text',
        text: selectorUserMessage({
          query: options.query,
          manifest: formatManifest(options.candidates),
          ...(options.toolsInUse ? { toolsInUse: options.toolsInUse } : {}),
        }),
      },
    ],
  };
  try {
    const response = await Promise.race([
      model.generate({
        system: SELECTOR_SYSTEM_PROMPT,
        tools: [selectToolDefinition(files)],
        messages: [message],
        maxTokens: SELECTOR_MAX_TOKENS,
        signal: controller.signal,
        timeoutMs,
      }),
      timeout,
    ]);
    return keepKnown(readSelection(response.message), files);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The file names in the model's answer: the tool call if there is one, else a JSON array in text. */
export function readSelection(message: Message): string[] {
  for (const block of message.content) {
    if (block.type === 'tool_use' && block.name === SELECT_TOOL_NAME) {
      const input = block.input as { files?: unknown } | null;
      if (input && Array.isArray(input.files)) return input.files.filter(isString);
      throw new EngramError(
        'model_error',
        'the memory selector called its tool without a files list',
      );
    }
  }
  const text = message.content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n')
    .trim();
  const parsed = parseJsonList(text);
  if (parsed === undefined) {
    throw new EngramError('model_error', 'the memory selector answered without a list of files');
  }
  return parsed;
}

function parseJsonList(text: string): string[] | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  for (let end = text.length; end > start; end--) {
    const close = text[end - 1];
    if (close !== ']' && close !== '}') continue;
    try {
      const value: unknown = JSON.parse(text.slice(start, end));
      if (Array.isArray(value)) return value.filter(isString);
      const files = (value as { files?: unknown } | null)?.files;
      if (Array.isArray(files)) return files.filter(isString);
    } catch {
      // not JSON up to here; try a shorter span
    }
  }
  return undefined;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** Only names from the manifest, each once, in the model's order, at most five. Pure. */
export function keepKnown(chosen: readonly string[], files: readonly string[]): string[] {
  const known = new Set(files);
  const out: string[] = [];
  for (const name of chosen) {
    const file = name.trim();
    if (known.has(file) && !out.includes(file)) out.push(file);
    if (out.length === MAX_RECALLED) break;
  }
  return out;
}
