import { dropIndexEntries, parseIndexEntries, renderIndexLine } from './index-file.js';
import type { MemoryHeader } from './types.js';

export interface RebuiltIndex {
  text: string;
  /** Files that gained a line. */
  added: string[];
  /** Pointers dropped: to missing or revoked files, or duplicates. */
  removed: string[];
  lines: number;
}

/**
 * Rebuild MEMORY.md from the files: keep the person's own lines (headings, prose) and every valid
 * pointer in place whatever its form (numbered, in a table, with a title), drop pointers to missing
 * or revoked files and second pointers to one file, and append a line for each active memory
 * without one. Pure.
 */
export function rebuildIndexText(current: string, memories: readonly MemoryHeader[]): RebuiltIndex {
  const active = new Map(memories.filter((m) => m.status === 'active').map((m) => [m.file, m]));
  const seen = new Set<string>();
  const stale = parseIndexEntries(current).filter((e) => {
    if (active.has(e.file) && !seen.has(e.file)) {
      seen.add(e.file);
      return false;
    }
    return true;
  });
  const kept = dropIndexEntries(current, stale);
  const lines = kept === '' ? [] : kept.replace(/\n$/, '').split('\n');
  const added: string[] = [];
  for (const m of active.values()) {
    if (seen.has(m.file)) continue;
    lines.push(renderIndexLine(m.name ?? m.file.replace(/\.md$/, ''), m.file, m.description ?? ''));
    added.push(m.file);
  }
  return {
    text: lines.length === 0 ? '' : `${lines.join('\n')}\n`,
    added,
    removed: stale.map((e) => e.file),
    lines: lines.length,
  };
}
