/**
 * Content blocks of Claude Code transcript lines → the neutral model. Unknown block types are
 * dropped; images and documents leave a marker so a turn still reads right as text.
 */
import type { ContentBlock, TextBlock, ToolResultBlock } from './types.js';

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function toTextBlocks(content: unknown): string | TextBlock[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const blocks: TextBlock[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') {
      blocks.push({ type: 'text', text: block.text });
    } else if (typeof block.type === 'string') {
      // Images and documents cannot travel as text; leave a marker so the turn still reads right.
      blocks.push({ type: 'text', text: `[${block.type}]` });
    }
  }
  return blocks;
}

/** Convert one raw content block; undefined for block types the neutral model does not carry. */
function convertBlock(block: unknown): ContentBlock | undefined {
  if (!isObject(block)) return undefined;
  switch (block.type) {
    case 'text':
      // Claude Code writes a whitespace-only text line ahead of thinking; the API refuses those.
      return typeof block.text === 'string' && block.text.trim() !== ''
        ? { type: 'text', text: block.text }
        : undefined;
    case 'thinking': {
      if (typeof block.thinking !== 'string') return undefined;
      const signature = str(block.signature);
      return signature === undefined
        ? { type: 'thinking', thinking: block.thinking }
        : { type: 'thinking', thinking: block.thinking, signature };
    }
    case 'tool_use': {
      const id = str(block.id);
      const name = str(block.name);
      if (id === undefined || name === undefined) return undefined;
      return { type: 'tool_use', id, name, input: block.input ?? {} };
    }
    case 'tool_result': {
      const toolUseId = str(block.tool_use_id);
      if (toolUseId === undefined) return undefined;
      const result: ToolResultBlock = {
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: toTextBlocks(block.content),
      };
      if (block.is_error === true) result.is_error = true;
      return result;
    }
    case 'image':
    case 'document':
      return { type: 'text', text: `[${block.type}]` };
    default:
      return undefined;
  }
}

export function convertContent(content: unknown): ContentBlock[] {
  if (typeof content === 'string') {
    return content.trim() !== '' ? [{ type: 'text', text: content }] : [];
  }
  if (!Array.isArray(content)) return [];
  const blocks: ContentBlock[] = [];
  for (const raw of content) {
    const block = convertBlock(raw);
    if (block !== undefined) blocks.push(block);
  }
  return blocks;
}
