/**
 * Orphans counted two independent ways, so the audit can tell when its own count is wrong:
 * - per file: each active memory is looked up among the index's pointers (the line scanner that
 *   also edits the index);
 * - by links: every link target the markdown parser finds in the index, deduplicated, and the
 *   memories not among them.
 * They agree on any index the line scanner reads correctly; when they do not, some line is written
 * in a form one of them misreads, and the audit says its orphan count is unreliable. Pure.
 */
import { indexTargetsByMarkdown, parseIndexEntries } from './index-links.js';
import type { MemoryHeader } from './types.js';

export interface OrphanCount {
  /** Orphans by per-file lookup (the count the audit reports). */
  perFile: string[];
  /** Orphans by deduplicated link-target extraction. */
  byLinks: string[];
  /** True when both ways name the same files. */
  reliable: boolean;
}

export function countOrphans(memories: readonly MemoryHeader[], indexText: string): OrphanCount {
  const pointed = new Set(parseIndexEntries(indexText).map((e) => e.file));
  const linked = indexTargetsByMarkdown(indexText);
  const active = memories.filter((m) => m.status === 'active').map((m) => m.file);
  const perFile = active.filter((file) => !pointed.has(file));
  const byLinks = active.filter((file) => !linked.has(file));
  const reliable = perFile.length === byLinks.length && perFile.every((f, i) => byLinks[i] === f);
  return { perFile, byLinks, reliable };
}

export interface DanglingCount {
  /** Index targets naming no memory file, by the line scanner. */
  perLine: string[];
  /** Index targets naming no memory file, by the markdown parser's links. */
  byLinks: string[];
  reliable: boolean;
}

/**
 * Dangling index pointers counted the same two ways: the targets the line scanner reads, and the
 * markdown parser's link targets, each against every memory file on disk (revoked ones too: a
 * pointer at a revoked memory is wrong, but not dangling). The doctor reports both. Pure.
 */
export function countDangling(memories: readonly MemoryHeader[], indexText: string): DanglingCount {
  const files = new Set(memories.map((m) => m.file));
  const perLine = [...new Set(parseIndexEntries(indexText).map((e) => e.file))]
    .filter((f) => !files.has(f))
    .sort();
  const byLinks = [...indexTargetsByMarkdown(indexText)].filter((f) => !files.has(f)).sort();
  const reliable = perLine.length === byLinks.length && perLine.every((f, i) => byLinks[i] === f);
  return { perLine, byLinks, reliable };
}
