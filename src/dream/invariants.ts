import {
  type AuditProblem,
  type AuditProblemKind,
  type AuditReport,
  INDEX_LINE_MAX_CHARS,
  parseIndexEntries,
} from '../memdir/index.js';

/**
 * Problems a consolidation pass must leave at zero whatever it started with: pruning the index
 * and its pointers is the pass's own job.
 */
const MUST_BE_ABSENT: ReadonlySet<AuditProblemKind> = new Set([
  'index_over_lines',
  'index_over_bytes',
  'dangling_pointer',
  'revoked_in_index',
]);

export interface DreamInvariants {
  ok: boolean;
  /** What the pass broke, or left broken where fixing it was its job. */
  violations: AuditProblem[];
  /** Problems the pass fixed. */
  resolved: AuditProblem[];
  /** Problems that were there before and still are (not the pass's fault). */
  preexisting: AuditProblem[];
  memoriesBefore: number;
  memoriesAfter: number;
  indexEntriesBefore: number;
  indexEntriesAfter: number;
  /** Index lines longer than the ~150 characters a pointer should need: a warning, not a violation. */
  longIndexLines: number;
}

const key = (p: AuditProblem) => `${p.kind}\0${p.file}`;

/** Compare the audits taken before and after a run. Pure. */
export function compareAudits(
  before: AuditReport,
  after: AuditReport,
  indexTextAfter: string,
): DreamInvariants {
  const was = new Set(before.problems.map(key));
  const now = new Set(after.problems.map(key));
  const violations = after.problems.filter((p) => MUST_BE_ABSENT.has(p.kind) || !was.has(key(p)));
  const preexisting = after.problems.filter((p) => !MUST_BE_ABSENT.has(p.kind) && was.has(key(p)));
  const lines = indexTextAfter.split('\n');
  const longIndexLines = parseIndexEntries(indexTextAfter).filter(
    (e) => (lines[e.line] ?? '').length > INDEX_LINE_MAX_CHARS,
  ).length;
  return {
    ok: violations.length === 0,
    violations,
    resolved: before.problems.filter((p) => !now.has(key(p))),
    preexisting,
    memoriesBefore: before.memories,
    memoriesAfter: after.memories,
    indexEntriesBefore: before.indexEntries,
    indexEntriesAfter: after.indexEntries,
    longIndexLines,
  };
}
