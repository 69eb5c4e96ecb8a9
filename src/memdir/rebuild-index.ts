import { parseIndexEntries, renderIndexLine } from './index-file.js';
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
 * pointer in place, drop pointers to missing or revoked files and duplicates, and append a line for
 * each active memory without one. Pure.
 */
export function rebuildIndexText(current: string, memories: readonly MemoryHeader[]): RebuiltIndex {
  const active = new Map(memories.filter((m) => m.status === 'active').map((m) => [m.file, m]));
  const entryByLine = new Map(parseIndexEntries(current).map((e) => [e.line, e]));
  const seen = new Set<string>();
  const removed: string[] = [];
  const kept: string[] = [];
  const lines = current === '' ? [] : current.replace(/\n$/, '').split('\n');
  lines.forEach((line, i) => {
    const entry = entryByLine.get(i);
    if (!entry) {
      kept.push(line);
    } else if (active.has(entry.file) && !seen.has(entry.file)) {
      seen.add(entry.file);
      kept.push(line);
    } else {
      removed.push(entry.file);
    }
  });
  const added: string[] = [];
  for (const m of active.values()) {
    if (seen.has(m.file)) continue;
    kept.push(renderIndexLine(m.name ?? m.file.replace(/\.md$/, ''), m.file, m.description ?? ''));
    added.push(m.file);
  }
  return {
    text: kept.length === 0 ? '' : `${kept.join('\n')}\n`,
    added,
    removed,
    lines: kept.length,
  };
}
