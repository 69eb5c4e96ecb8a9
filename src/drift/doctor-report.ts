/** The doctor's own findings, from data already gathered. Pure. */

import { MAX_MEMORY_BYTES, MAX_MEMORY_LINES } from '../inject/constants.js';
import {
  INDEX_FILE,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  type IndexCrossCheck,
  type MemoryHeader,
  type TruncatedIndex,
} from '../memdir/index.js';
import { type Polarity, polarityIsLopsided, type RelativeDate } from './doctor-checks.js';
import type { DoctorFinding } from './doctor-findings.js';

/** One entry of the old ∩ precise list (seed 000 §8.3): a memory citing files or lines. */
export interface PreciseMemory {
  file: string;
  ageDays: number;
  /** File and file:line claims in it. */
  claims: number;
  /** False when the project was not checked (no project, or the budget ran out). */
  checked: boolean;
  /** What the project contradicts, as the header would say it. */
  failed: string[];
}

/** Past this share of a cap the index gets a warning: the next few saves will be cut off. */
const INDEX_NEAR_CAP = 0.8;

export function indexFindings(cross: IndexCrossCheck, index: TruncatedIndex): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  // The audit reports its own orphan disagreement; the doctor adds the dangling one.
  const a = cross.byIndexParser;
  const b = cross.byLinkScan;
  if (a.dangling.join('\0') !== b.dangling.join('\0')) {
    out.push({
      kind: 'dangling_count_unreliable',
      severity: 'error',
      file: INDEX_FILE,
      message: `The dangling count is unreliable: the line scanner finds ${a.dangling.length} index lines pointing at nothing, the markdown parser's links ${b.dangling.length}. Differing targets: ${differing(a, b).join(', ') || 'none'}.`,
      fix: `rewrite the differing lines of ${INDEX_FILE} as \`- [Title](file.md) — hook\`; --fix will not touch the index until both counts agree`,
    });
  }
  const lineShare = index.totalLines / INDEX_MAX_LINES;
  const byteShare = index.totalBytes / INDEX_MAX_BYTES;
  const over = index.truncated;
  out.push({
    kind: 'index_budget',
    severity: !over && Math.max(lineShare, byteShare) >= INDEX_NEAR_CAP ? 'warning' : 'info',
    file: INDEX_FILE,
    message: `${INDEX_FILE} uses ${index.totalLines} of ${INDEX_MAX_LINES} lines (${pct(lineShare)}) and ${index.totalBytes} of ${INDEX_MAX_BYTES} bytes (${pct(byteShare)}).`,
    fix: over
      ? 'see the index_over_* finding'
      : Math.max(lineShare, byteShare) >= INDEX_NEAR_CAP
        ? 'consolidate (`engram dream`) or shorten lines before the cap cuts the newest entries'
        : 'nothing to do',
  });
  return out;
}

function differing(
  a: IndexCrossCheck['byIndexParser'],
  b: IndexCrossCheck['byLinkScan'],
): string[] {
  const sym = (x: string[], y: string[]) => [
    ...x.filter((v) => !y.includes(v)),
    ...y.filter((v) => !x.includes(v)),
  ];
  return [...new Set([...sym(a.orphans, b.orphans), ...sym(a.dangling, b.dangling)])].sort();
}

function pct(share: number): string {
  return `${Math.round(share * 100)}%`;
}

export function contentFindings(
  header: MemoryHeader,
  content: string,
  dates: RelativeDate[],
  needsWhy: boolean,
): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const file = header.file;
  if (needsWhy) {
    out.push({
      kind: 'missing_why',
      severity: 'warning',
      file,
      message: `${file} is a ${header.type} memory without **Why:**; nobody can tell when it stops applying.`,
      fix: 'add a **Why:** line with the reason (and **How to apply:**), or revoke it if the reason is gone',
    });
  }
  for (const d of dates) {
    out.push({
      kind: 'relative_date',
      severity: 'warning',
      file,
      line: d.line,
      message: `${file} line ${d.line} says "${d.text}", a date relative to a day nobody remembers.`,
      fix: 'replace it with the absolute date (e.g. 2026-03-05) it meant when it was written',
    });
  }
  const bytes = Buffer.byteLength(content, 'utf8');
  const lines = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  if (bytes > MAX_MEMORY_BYTES || lines > MAX_MEMORY_LINES) {
    out.push({
      kind: 'over_injection_cap',
      severity: 'warning',
      file,
      message: `${file} is ${lines} lines and ${bytes} bytes; recall injects only the first ${MAX_MEMORY_LINES} lines and ${MAX_MEMORY_BYTES} bytes.`,
      fix: 'split it into one memory per fact, or move the detail into a file it points at',
    });
  }
  return out;
}

export function preciseFindings(precise: PreciseMemory[]): DoctorFinding[] {
  return precise.flatMap((p): DoctorFinding[] => {
    if (!p.checked) {
      return [
        {
          kind: 'claims_unchecked',
          severity: 'info',
          file: p.file,
          message: `${p.file} (${p.ageDays} days old) cites ${p.claims} file(s) or line(s) that were not checked against a project.`,
          fix: 'run the doctor from inside the project (or with --cwd) so its claims can be checked',
        },
      ];
    }
    if (p.failed.length === 0) return [];
    return [
      {
        kind: 'claim_fails',
        severity: 'warning',
        file: p.file,
        message: `${p.file} (${p.ageDays} days old) cites what the project no longer has: ${p.failed.join('; ')}.`,
        fix: `update the citation, or \`engram revoke ${p.file} --reason "…"\` if the memory no longer holds`,
      },
    ];
  });
}

export interface ReportInputs {
  polarity: Record<Polarity, number>;
  feedback: number;
  /** Per memory: its layer, that layer's directory and how many recalls its log holds. */
  neverRecalled: Array<{ file: string; layer: string; dir: string; recalls: number }>;
  duplicates: Array<{ a: string; b: string; similarity: number }>;
  dangling: Array<{ file: string; target: string }>;
  revoked: number;
}

export function reportFindings(r: ReportInputs): DoctorFinding[] {
  const out: DoctorFinding[] = [];
  const { correction, confirmation, mixed, neither } = r.polarity;
  if (r.feedback > 0) {
    const lopsided = polarityIsLopsided(correction, confirmation);
    out.push({
      kind: 'feedback_polarity',
      severity: lopsided ? 'warning' : 'info',
      message: `${r.feedback} feedback memories: ${correction} corrections, ${confirmation} confirmations, ${mixed} mixed, ${neither} neither (by keywords: a sieve, not a verdict).`,
      fix: lopsided
        ? 'save what worked as well as what went wrong: a directory of corrections alone drifts away from the behaviour the user liked'
        : 'nothing to do',
    });
  }
  for (const { file, layer, dir, recalls } of r.neverRecalled) {
    out.push({
      kind: 'never_recalled',
      severity: 'info',
      file,
      layer,
      // The project layer's reads as it always did; the file of a further layer is relative to
      // that layer's directory, which the message names.
      message:
        layer === 'project'
          ? `${file} was not selected in any of the ${recalls} logged recalls.`
          : `${file} of the ${layer} layer (${dir}) was not selected in any of the ${recalls} recalls in the ${layer} layer's recall log.`,
      fix: 'make its description more specific, or revoke it if it no longer matters',
    });
  }
  for (const d of r.duplicates) {
    out.push({
      kind: 'near_duplicate',
      severity: 'warning',
      file: d.a,
      message: `${d.a} and ${d.b} have nearly the same description (${Math.round(d.similarity * 100)}% of words shared); they compete for one recall slot.`,
      fix: `merge them (\`engram revoke ${d.b} --reason "merged" --superseded-by ${d.a}\`) or make each description specific`,
    });
  }
  for (const d of r.dangling) {
    out.push({
      kind: 'superseded_by_missing',
      severity: 'warning',
      file: d.file,
      message: `${d.file} is superseded by ${d.target}, which does not exist.`,
      fix: `fix superseded_by in ${d.file}, or restore ${d.target}`,
    });
  }
  out.push({
    kind: 'revoked_count',
    severity: 'info',
    message: `${r.revoked} revoked memories (kept on disk so they are not learned again).`,
    fix: 'nothing to do',
  });
  return out;
}
