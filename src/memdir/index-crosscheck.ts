/**
 * Orphans and dangling index lines, each counted by the two independent readers the audit uses
 * (`audit-orphans.ts`: the line scanner and the markdown parser's links), in the shape the doctor
 * reports. One place counts; this only puts the two counts side by side.
 */
import { countDangling, countOrphans } from './audit-orphans.js';
import type { MemoryHeader } from './types.js';

export interface IndexCount {
  /** Active memory files no index line points at. */
  orphans: string[];
  /** Index targets that name no file in the directory. */
  dangling: string[];
}

export interface IndexCrossCheck {
  /** The line scanner (`parseIndexEntries`), the count the audit reports. */
  byIndexParser: IndexCount;
  /** The markdown parser's link tokens (`indexTargetsByMarkdown`). */
  byLinkScan: IndexCount;
  /** Both readers name the same orphans and the same dangling targets. */
  agree: boolean;
}

/** Both counts, and whether they agree. Pure. */
export function crossCheckIndex(
  memories: readonly MemoryHeader[],
  indexText: string,
): IndexCrossCheck {
  const orphans = countOrphans(memories, indexText);
  const dangling = countDangling(memories, indexText);
  return {
    byIndexParser: { orphans: [...orphans.perFile].sort(), dangling: dangling.perLine },
    byLinkScan: { orphans: [...orphans.byLinks].sort(), dangling: dangling.byLinks },
    agree: orphans.reliable && dangling.reliable,
  };
}
