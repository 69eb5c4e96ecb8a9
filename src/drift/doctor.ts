import { mergedSettings, type SettingsFile, settingOrigin } from '../config/settings.js';
import {
  auditMemoryDir,
  crossCheckIndex,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  type IndexCrossCheck,
  type MemoryHeader,
  readIndexRaw,
  readMemory,
  scanMemories,
  truncateIndex,
} from '../memdir/index.js';
import { type Clock, systemClock } from '../util/clock.js';
import { type ClaimCheck, isLocationClaim } from './claims.js';
import {
  feedbackPolarity,
  findRelativeDates,
  hasWhy,
  nearDuplicateDescriptions,
  type Polarity,
} from './doctor-checks.js';
import {
  auditFinding,
  type DoctorFinding,
  settingsFindings,
  sortFindings,
} from './doctor-findings.js';
import { type LayerRecalls, layerRecalls, type RecallLogLayer } from './doctor-recalls.js';
import {
  contentFindings,
  indexFindings,
  type PreciseMemory,
  preciseFindings,
  reportFindings,
} from './doctor-report.js';
import { extractClaims } from './extract-claims.js';
import { createClaimVerifier } from './verifier.js';

export interface DoctorOptions {
  /** A folder in the project the memories describe; their claims are checked against it. */
  projectDir?: string;
  /** Time for checking claims (default 10 s); past it, unchecked memories are listed as such. */
  verifyBudgetMs?: number;
  /** The recall log (default: the one in the memory directory). */
  recallLog?: string;
  /** The layer `dir` is in the chain (default `project`): never-recalled findings name it. */
  layer?: string;
  /**
   * The chain's further layers (the user layer): their memories are checked for never being
   * recalled too, each against its own recall log (default `<dir>/.engram/recall-metrics.jsonl`),
   * where a recall of one of them is logged from whichever project it ran in.
   */
  layers?: readonly RecallLogLayer[];
  /** The merged settings the directory is used with: values recall refuses are named. */
  settings?: Readonly<Record<string, unknown>>;
  /**
   * The settings files `settings` was merged from (`loadSettings`): a refused value's finding then
   * names the file that holds it (default: `settings` merged from these, when only they are given).
   */
  settingsFiles?: readonly SettingsFile[];
  clock?: Clock;
}

export interface DoctorSummary {
  memories: number;
  active: number;
  revoked: number;
  indexLines: number;
  orphans: { byIndexParser: number; byLinkScan: number; agree: boolean };
  dangling: { byIndexParser: number; byLinkScan: number; agree: boolean };
  index: { lines: number; maxLines: number; bytes: number; maxBytes: number };
  polarity: Record<Polarity, number> & { feedback: number };
  precise: { memories: number; failing: number; unchecked: number; list: PreciseMemory[] };
  /** The recall log of `dir`, then each layer's (`layers`, with `dir`'s first) and what it found. */
  recallLog: {
    recalls: number;
    neverRecalled: number;
    layers: Array<{
      layer: string;
      dir: string;
      log: string;
      recalls: number;
      neverRecalled: number;
    }>;
  };
  counts: { error: number; warning: number; info: number };
}

export interface DoctorReport {
  /** No error and no warning. */
  ok: boolean;
  dir: string;
  findings: DoctorFinding[];
  summary: DoctorSummary;
  crossCheck: IndexCrossCheck;
}

interface Body {
  header: MemoryHeader;
  content: string;
  body: string;
}

/** The refused setting values, each with the file it came from when the files are known. */
function settingFindingsOf(options: DoctorOptions): DoctorFinding[] {
  const files = options.settingsFiles;
  const settings = options.settings ?? (files ? mergedSettings([...files]) : undefined);
  if (!settings) return [];
  const origin = files ? settingOrigin(files, 'recallDecay') : undefined;
  return settingsFindings(settings, origin);
}

/**
 * Everything that fails silently in a memory directory, one finding per problem with its fix:
 * the audit's invariants, orphans counted twice, reasons and dates, caps, polarity, precise
 * claims the project no longer backs, memories recall never picks, duplicates, dead pointers.
 */
export async function diagnoseMemoryDir(
  dir: string,
  options: DoctorOptions = {},
): Promise<DoctorReport> {
  const nowMs = (options.clock ?? systemClock).now();
  const [audit, scan, indexText] = await Promise.all([
    auditMemoryDir(dir),
    scanMemories(dir, { cap: Number.POSITIVE_INFINITY }),
    readIndexRaw(dir).then((t) => t ?? ''),
  ]);
  const crossCheck = crossCheckIndex(scan.memories, indexText);
  const bodies = await readBodies(dir, scan.memories);
  const active = bodies.filter((b) => b.header.status === 'active');
  const findings: DoctorFinding[] = audit.problems.map(auditFinding);
  findings.push(...indexFindings(crossCheck, truncateIndex(indexText)));
  findings.push(...settingFindingsOf(options));
  const polarity = { correction: 0, confirmation: 0, mixed: 0, neither: 0 };
  for (const b of active) {
    const dates = findRelativeDates(b.content);
    const needsWhy =
      (b.header.type === 'feedback' || b.header.type === 'project') && !hasWhy(b.body);
    findings.push(...contentFindings(b.header, b.content, dates, needsWhy));
    if (b.header.type === 'feedback') polarity[feedbackPolarity(b.body)]++;
  }
  const feedback = active.filter((b) => b.header.type === 'feedback').length;
  const precise = await checkPrecise(dir, active, nowMs, options);
  const recalls = await recallsByLayer(dir, active, options);
  const own = recalls[0]!;
  findings.push(
    ...preciseFindings(precise),
    ...reportFindings({
      polarity,
      feedback,
      neverRecalled: recalls.flatMap((r) =>
        r.neverRecalled.map((file) => ({ file, layer: r.layer, dir: r.dir, recalls: r.recalls })),
      ),
      duplicates: nearDuplicateDescriptions(
        active.flatMap((b) =>
          b.header.description ? [{ file: b.header.file, description: b.header.description }] : [],
        ),
      ),
      dangling: danglingSupersessions(scan.memories),
      revoked: scan.memories.filter((m) => m.status === 'revoked').length,
    }),
  );
  const sorted = sortFindings(findings);
  const count = (s: DoctorFinding['severity']) => sorted.filter((f) => f.severity === s).length;
  const capped = truncateIndex(indexText);
  const summary: DoctorSummary = {
    memories: scan.memories.length,
    active: scan.memories.filter((m) => m.status === 'active').length,
    revoked: scan.memories.filter((m) => m.status === 'revoked').length,
    indexLines: audit.indexEntries,
    orphans: {
      byIndexParser: crossCheck.byIndexParser.orphans.length,
      byLinkScan: crossCheck.byLinkScan.orphans.length,
      agree: sameList(crossCheck.byIndexParser.orphans, crossCheck.byLinkScan.orphans),
    },
    dangling: {
      byIndexParser: crossCheck.byIndexParser.dangling.length,
      byLinkScan: crossCheck.byLinkScan.dangling.length,
      agree: sameList(crossCheck.byIndexParser.dangling, crossCheck.byLinkScan.dangling),
    },
    index: {
      lines: capped.totalLines,
      maxLines: INDEX_MAX_LINES,
      bytes: capped.totalBytes,
      maxBytes: INDEX_MAX_BYTES,
    },
    polarity: { feedback, ...polarity },
    precise: {
      memories: precise.length,
      failing: precise.filter((p) => p.failed.length > 0).length,
      unchecked: precise.filter((p) => !p.checked).length,
      list: precise,
    },
    recallLog: {
      recalls: own.recalls,
      neverRecalled: own.neverRecalled.length,
      layers: recalls.map((r) => ({ ...r, neverRecalled: r.neverRecalled.length })),
    },
    counts: { error: count('error'), warning: count('warning'), info: count('info') },
  };
  return {
    ok: summary.counts.error + summary.counts.warning === 0,
    dir,
    findings: sorted,
    summary,
    crossCheck,
  };
}

/**
 * Never-recalled memories of `dir` (from its recall log) and of each further layer (from that
 * layer's own log): a user memory's recalls are in the user layer's log, whatever project ran them.
 */
async function recallsByLayer(
  dir: string,
  active: Body[],
  options: DoctorOptions,
): Promise<LayerRecalls[]> {
  const described = active.filter((b) => b.header.description).map((b) => b.header.file);
  const own = {
    layer: options.layer ?? 'project',
    dir,
    ...(options.recallLog !== undefined ? { recallLog: options.recallLog } : {}),
  };
  return Promise.all([
    layerRecalls(own, described),
    ...(options.layers ?? []).filter((l) => l.dir !== dir).map((l) => layerRecalls(l)),
  ]);
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function readBodies(dir: string, memories: MemoryHeader[]): Promise<Body[]> {
  const out: Body[] = [];
  for (const m of memories) {
    if (m.unreadable !== undefined) continue;
    const doc = await readMemory(dir, m.file).catch(() => undefined);
    if (doc) out.push({ header: doc.header, content: doc.content, body: doc.body });
  }
  return out;
}

/** Memories citing files or lines, oldest first, with what fails in the project now. */
async function checkPrecise(
  dir: string,
  active: Body[],
  nowMs: number,
  options: DoctorOptions,
): Promise<PreciseMemory[]> {
  const precise = active
    .filter((b) => extractClaims(b.body).some(isLocationClaim))
    .sort((a, b) => a.header.mtimeMs - b.header.mtimeMs);
  if (precise.length === 0 || options.projectDir === undefined) {
    return precise.map((b) => preciseEntry(b, nowMs, undefined));
  }
  const verifier = createClaimVerifier({
    projectDir: options.projectDir,
    memoryDir: dir,
    budgetMs: options.verifyBudgetMs ?? 10_000,
    fresh: true, // "which claims fail now": outside git the cache key is only a time bucket
  });
  const results = await verifier
    .verifyMemories(precise.map((b) => ({ file: b.header.file, content: b.content })))
    .finally(() => verifier.dispose());
  return precise.map((b) => preciseEntry(b, nowMs, results.get(b.header.file)?.checks));
}

function preciseEntry(b: Body, nowMs: number, checks: ClaimCheck[] | undefined): PreciseMemory {
  const claims = extractClaims(b.body).filter(isLocationClaim).length;
  return {
    file: b.header.file,
    ageDays: Math.max(0, Math.floor((nowMs - b.header.mtimeMs) / 86_400_000)),
    claims,
    checked: checks !== undefined,
    failed: (checks ?? []).flatMap((c) => (c.status === 'fails' && c.detail ? [c.detail] : [])),
  };
}

function danglingSupersessions(memories: MemoryHeader[]): Array<{ file: string; target: string }> {
  const files = new Set(memories.map((m) => m.file));
  return memories.flatMap((m) => {
    const target = m.frontmatter.superseded_by;
    return typeof target === 'string' && target.trim() !== '' && !files.has(target.trim())
      ? [{ file: m.file, target: target.trim() }]
      : [];
  });
}
