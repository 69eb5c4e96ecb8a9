/**
 * What the doctor says: one finding per problem, each with what to do. The audit's problems are
 * taken as they are (the audit owns those invariants); the doctor adds what needs the bodies, the
 * recall log or the project.
 */
import type { AuditProblem } from '../memdir/index.js';
import { decayFromSettings } from '../recall/decay.js';

export type FindingSeverity = 'error' | 'warning' | 'info';

export interface DoctorFinding {
  /** Stable machine name, e.g. `orphan`, `relative_date`, `claim_fails`. */
  kind: string;
  /** error: broken now; warning: will mislead; info: worth knowing. Only info leaves `ok` true. */
  severity: FindingSeverity;
  /** The memory file concerned (relative to the memory directory), or MEMORY.md. */
  file?: string;
  /** 1-based line in that file. */
  line?: number;
  /** The layer of the chain the finding is about, where the check covers several (`user`, …). */
  layer?: string;
  message: string;
  /** What to do about it, as a command or an edit. */
  fix: string;
}

const AUDIT_FIXES: Record<string, { severity: FindingSeverity; fix: string }> = {
  orphan: {
    severity: 'error',
    fix: 'run `engram doctor --fix` (adds its index line) or `engram index --rebuild`',
  },
  dangling_pointer: {
    severity: 'error',
    fix: 'run `engram doctor --fix` (drops the line), or restore the file',
  },
  revoked_in_index: {
    severity: 'error',
    fix: 'run `engram doctor --fix` (drops the line): a revoked memory has no index line',
  },
  missing_description: {
    severity: 'error',
    fix: 'add a `description:` line to the frontmatter: one specific line recall can decide from',
  },
  unknown_type: {
    severity: 'warning',
    fix: 'set `type:` to user, feedback, project or reference',
  },
  no_frontmatter: {
    severity: 'error',
    fix: 'add frontmatter (--- name, description, type ---) at the top of the file',
  },
  malformed_frontmatter: { severity: 'error', fix: 'fix the YAML; quote values that contain ": "' },
  index_over_lines: {
    severity: 'error',
    fix: 'shorten MEMORY.md to one short line per memory, or run `engram dream` to consolidate',
  },
  index_over_bytes: {
    severity: 'error',
    fix: 'shorten the index lines (under ~150 characters each), or run `engram dream`',
  },
  leftover_temp: {
    severity: 'warning',
    fix: 'delete the temp file (the file it was replacing is intact), or run `engram audit --fix` where available',
  },
  unreadable: { severity: 'error', fix: 'fix the file permissions so engram can read it' },
  duplicate_index_line: {
    severity: 'error',
    fix: 'keep one line per memory (`engram index --rebuild` does)',
  },
  unparseable_index_line: {
    severity: 'error',
    fix: 'write it as `- [Title](file.md) — hook` (%20 for spaces), or delete it (`engram index --rebuild` and `doctor --fix` keep lines they cannot read)',
  },
  uninjectable: { severity: 'error', fix: 'save the file as UTF-8 text without NUL bytes' },
  symlink: {
    severity: 'warning',
    fix: 'replace the link with the file itself (links are never followed)',
  },
  orphan_count_unreliable: {
    severity: 'error',
    fix: 'rewrite the lines one reader misses as `- [Title](file.md) — hook`; `--fix` leaves the index alone until both counts agree',
  },
};

/** One audit problem as a finding; kinds the doctor does not know yet still count as errors. */
export function auditFinding(p: AuditProblem): DoctorFinding {
  const fallback = (p as { fixable?: boolean }).fixable
    ? 'run `engram audit --fix`'
    : 'see `engram audit` for this problem';
  const known = AUDIT_FIXES[p.kind] ?? { severity: 'error' as const, fix: fallback };
  return {
    kind: p.kind,
    severity: known.severity,
    file: p.file,
    ...(p.line !== undefined ? { line: p.line } : {}),
    message: p.message,
    fix: known.fix,
  };
}

/** Where a setting's value came from: the file's source (`project`, `user`, …) and path. */
export interface SettingLocation {
  source: string;
  path: string;
}

/**
 * A setting recall reads and refused: the value is ignored and its default used, which nothing
 * else says (a recall does not print, a hook cannot). One finding per refused value, naming the
 * settings file that holds it when `origin` says (four files may set it; one wins). Pure.
 */
export function settingsFindings(
  settings: Readonly<Record<string, unknown>>,
  origin?: SettingLocation,
): DoctorFinding[] {
  const where = origin ? ` (in the ${origin.source} settings ${origin.path})` : '';
  const file = origin ? origin.path : 'the settings file that sets `recallDecay`';
  return decayFromSettings(settings.recallDecay).problems.map((problem) => ({
    kind: 'invalid_setting',
    severity: 'warning',
    message: `${problem}${where}; recall uses the default for it instead.`,
    fix: `correct or remove it in ${file} (see docs/recall.md)`,
  }));
}

/** Errors first, then warnings, then info; stable within each. Pure. */
export function sortFindings(findings: DoctorFinding[]): DoctorFinding[] {
  const rank: Record<FindingSeverity, number> = { error: 0, warning: 1, info: 2 };
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank[a.f.severity] - rank[b.f.severity] || a.i - b.i)
    .map(({ f }) => f);
}

/**
 * `error orphan a.md: a.md has no line in MEMORY.md. Fix: …` — one line per finding; a finding
 * about a further layer says which (`info never_recalled [user] a.md: …`). Pure.
 */
export function formatFinding(f: DoctorFinding): string {
  // The project layer is the default one: its findings read as they always did.
  const layer = f.layer !== undefined && f.layer !== 'project' ? ` [${f.layer}]` : '';
  const where = f.file ? ` ${f.file}${f.line !== undefined ? `:${f.line}` : ''}` : '';
  return `${f.severity} ${f.kind}${layer}${where}: ${f.message.replace(/\s+/g, ' ')} Fix: ${f.fix}`;
}
