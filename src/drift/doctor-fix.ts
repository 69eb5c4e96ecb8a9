import { join } from 'node:path';
import { withOwnFolder } from '../confine/index.js';
import {
  INDEX_FILE,
  readIndexRaw,
  removeIndexLine,
  renderIndexLine,
  scanMemories,
  updateIndex,
  upsertIndexLine,
} from '../memdir/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type Clock, systemClock } from '../util/clock.js';
import type { DoctorReport } from './doctor.js';

/** Backups of MEMORY.md taken before a repair, inside the directory's dot folder. */
export const DOCTOR_BACKUP_DIR = '.engram/backups';

export interface DoctorRepair {
  /** The copy of MEMORY.md taken first (null when there was no index to copy). */
  backup: string | null;
  /** Files that got an index line. */
  addedIndexLines: string[];
  /** Index targets whose lines were dropped (dangling, or revoked). */
  droppedIndexLines: string[];
  /** Set when nothing was repaired, with the reason. */
  skipped?: string;
}

/**
 * The safe repairs: an index line for each orphan, and dropping lines that point at nothing or at
 * a revoked memory. Nothing else is touched. MEMORY.md is copied first, and the copy is named.
 * Refused while the two orphan counts disagree: a repair from a count that may be wrong could
 * drop a line that was fine.
 */
export async function repairMemoryDir(
  dir: string,
  report: DoctorReport,
  clock: Clock = systemClock,
): Promise<DoctorRepair> {
  const none = { backup: null, addedIndexLines: [], droppedIndexLines: [] };
  if (!report.crossCheck.agree) {
    return { ...none, skipped: 'the two orphan counts disagree, so the index is left as it is' };
  }
  const orphans = report.crossCheck.byIndexParser.orphans;
  const drop = [
    ...report.crossCheck.byIndexParser.dangling,
    ...report.findings.filter((f) => f.kind === 'revoked_in_index').flatMap((f) => f.file ?? []),
  ];
  if (orphans.length === 0 && drop.length === 0) return { ...none, skipped: 'nothing to repair' };
  let backup: string | null = null;
  const raw = await readIndexRaw(dir);
  if (raw !== undefined) {
    const stamp = new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
    const name = `${INDEX_FILE}.${stamp}.bak`;
    // The bytes just read through the confinement, into a folder reached without following a link
    // (a linked .engram would carry the copy out of the directory).
    await withOwnFolder(dir, DOCTOR_BACKUP_DIR, (held) =>
      writeFileAtomic(join(held, name), raw, { mode: 0o600 }),
    );
    backup = join(dir, DOCTOR_BACKUP_DIR, name);
  }
  const headers = new Map(
    (await scanMemories(dir, { cap: Number.POSITIVE_INFINITY })).memories.map((m) => [m.file, m]),
  );
  await updateIndex(dir, (text) => {
    let next = text;
    for (const file of new Set(drop)) next = removeIndexLine(next, file);
    for (const file of orphans) {
      const m = headers.get(file);
      if (m === undefined || m.status !== 'active') continue;
      const title = m.name ?? file.replace(/\.md$/, '');
      next = upsertIndexLine(next, file, renderIndexLine(title, file, m.description ?? ''));
    }
    return next;
  });
  return { backup, addedIndexLines: orphans, droppedIndexLines: [...new Set(drop)] };
}
