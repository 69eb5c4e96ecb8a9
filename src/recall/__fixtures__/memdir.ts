import { mkdtempSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '../../llm/types.js';
import { saveMemory } from '../../memdir/memory-file.js';
import type { MemoryType } from '../../memdir/types.js';

export const DAY = 86_400_000;
export const NOW = Date.parse('2026-11-29T12:00:00Z');

export function tempMemoryDir(): string {
  return mkdtempSync(join(tmpdir(), 'engram-recall-'));
}

export interface Seed {
  file: string;
  description: string;
  type?: MemoryType;
  body?: string;
  ageDays?: number;
}

/** Save memories through the real write path, then set their mtimes. */
export async function seedMemories(dir: string, seeds: readonly Seed[]): Promise<void> {
  for (const s of seeds) {
    await saveMemory(dir, {
      file: s.file,
      name: s.file.replace(/\.md$/, ''),
      description: s.description,
      type: s.type ?? 'project',
      body: s.body ?? `${s.description}\n**Why:** it matters.\n**How to apply:** always.`,
    });
    const t = (NOW - (s.ageDays ?? 0) * DAY - 60_000) / 1000;
    await utimes(join(dir, s.file), t, t);
  }
}

export function userText(id: string, ...texts: string[]): Message {
  return { id, role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) };
}

export function assistantText(id: string, text: string): Message {
  return { id, role: 'assistant', content: [{ type: 'text', text }] };
}
