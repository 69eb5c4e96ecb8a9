/**
 * What the inspector's API returns, computed from the runtime and the library: no policy of its
 * own. Every file read goes through `readMemory` / the memory directory's confinement.
 */
import { claimCachePath, readClaimCache } from '../drift/index.js';
import { DEFAULT_INJECTION_LIMITS } from '../inject/constants.js';
import {
  crossCheckIndex,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  memoryAgeDays,
  readIndexRaw,
  readMemory,
  scanMemories,
} from '../memdir/index.js';
import { type RecallShape, rankOffline, readRecallMetrics } from '../recall/index.js';
import { tokenize } from '../recall/tokenize.js';
import type { Engram } from '../runtime/index.js';
import { isTeamMemoryFile } from '../team/client/team-files.js';
import { EngramError } from '../util/errors.js';

export interface MemoryRow {
  file: string;
  layer: string;
  name: string | null;
  type: string;
  description: string | null;
  status: 'active' | 'revoked';
  ageDays: number;
  bytes: number;
  lines: number;
  overCap: boolean;
  claims: { total: number; failed: number; checkedAt: string } | null;
}

function layerDir(engram: Engram, layer: string | undefined): { layer: string; dir: string } {
  // The team layer is the project directory's team/ folder; its files are named `team/<key>`.
  const chainLayer = layer === 'team' ? 'project' : (layer ?? 'project');
  const found = engram.memoryChain.find((l) => l.layer === chainLayer);
  if (!found) throw new EngramError('not_found', `no ${layer} memory layer here`);
  return { layer: layer === 'team' ? 'team' : found.layer, dir: found.dir };
}

/** A row's layer as recall names it: a file of the project's team/ folder is the team layer's. */
function rowLayer(layer: string, file: string): string {
  return layer === 'project' && isTeamMemoryFile(file) ? 'team' : layer;
}

/**
 * The directory a memory of `layer` is read or revoked in; `?layer=team` reaches only the team
 * folder's files (`team/<key>`), never another project memory.
 */
export function memoryLocation(
  engram: Engram,
  file: string,
  layer: string | undefined,
): { layer: string; dir: string } {
  const found = layerDir(engram, layer);
  if (found.layer === 'team' && !isTeamMemoryFile(file))
    throw new EngramError('not_found', `${file} is not a team memory (team/<file>)`);
  return found;
}

export async function listMemories(engram: Engram): Promise<MemoryRow[]> {
  const rows: MemoryRow[] = [];
  const nowMs = engram.clock.now();
  for (const { layer, dir } of engram.memoryChain) {
    const [scan, cache] = await Promise.all([
      scanMemories(dir, { cap: Number.POSITIVE_INFINITY }),
      readClaimCache(claimCachePath(dir)),
    ]);
    for (const m of scan.memories) {
      const doc = await readMemory(dir, m.file).catch(() => undefined);
      const content = doc?.content ?? '';
      const bytes = Buffer.byteLength(content);
      const lines = content === '' ? 0 : content.split('\n').length;
      const entry = Object.hasOwn(cache.entries, m.file) ? cache.entries[m.file] : undefined;
      rows.push({
        file: m.file,
        layer: rowLayer(layer, m.file),
        name: m.name ?? null,
        type: m.type,
        description: m.description ?? null,
        status: m.status,
        ageDays: memoryAgeDays(m.mtimeMs, nowMs),
        bytes,
        lines,
        overCap:
          bytes > DEFAULT_INJECTION_LIMITS.maxBytes || lines > DEFAULT_INJECTION_LIMITS.maxLines,
        claims: entry
          ? {
              total: entry.checks.length,
              failed: entry.checks.filter((c) => c.status === 'fails').length,
              checkedAt: entry.checkedAt,
            }
          : null,
      });
    }
  }
  return rows;
}

export async function memoryDetail(engram: Engram, file: string, layer?: string) {
  const { dir, layer: name } = memoryLocation(engram, file, layer);
  const doc = await readMemory(dir, file);
  const fm = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(doc.content)?.[0] ?? '';
  const history = engram.recallLog
    ? (await readRecallMetrics(engram.recallLog)).shapes
        .filter((s) => s.files.includes(file))
        .map((s) => ({ at: s.at, selector: s.selector, selected: s.selected }))
    : [];
  return {
    file: doc.header.file,
    layer: name,
    status: doc.header.status,
    type: doc.header.type,
    frontmatter: fm,
    body: doc.body,
    content: doc.content,
    recallHistory: history,
  };
}

export async function indexHealth(engram: Engram) {
  const dir = engram.memoryDir;
  const text = (await readIndexRaw(dir)) ?? '';
  const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
  const lines = text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
  const cross = crossCheckIndex(scan.memories, text);
  return {
    text,
    lines,
    bytes: Buffer.byteLength(text),
    maxLines: INDEX_MAX_LINES,
    maxBytes: INDEX_MAX_BYTES,
    orphans: cross.byIndexParser.orphans,
    dangling: cross.byIndexParser.dangling,
    agree: cross.agree,
  };
}

export async function doctorReport(engram: Engram) {
  // The runtime's doctor: the same settings, layers and logs as `engram doctor`.
  const report = await engram.doctor({ verifyBudgetMs: 5000, projectDir: engram.projectRoot });
  return {
    ok: report.ok,
    dir: report.dir,
    findings: report.findings,
    summary: report.summary,
  };
}

/** The recall playground: the runtime's recall (not logged) plus the offline ranker's reasons. */
export async function playground(engram: Engram, query: string, selector: 'offline' | 'model') {
  if (selector === 'model' && !engram.model) {
    throw new EngramError('invalid_input', 'no model is configured: use the offline selector');
  }
  const result = await engram.recall({ query, modelRecall: selector === 'model', log: false });
  const { dir } = layerDir(engram, 'project');
  const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
  const active = scan.memories.filter((m) => m.status === 'active');
  const docs = await Promise.all(
    active.map(async (m) => ({
      file: m.file,
      type: m.type,
      mtimeMs: m.mtimeMs,
      ...(m.name ? { name: m.name } : {}),
      ...(m.description ? { description: m.description } : {}),
      body: (await readMemory(dir, m.file).catch(() => undefined))?.body ?? '',
    })),
  );
  const queryWords = new Set(tokenize(query));
  const ranked = rankOffline(query, docs, {
    nowMs: engram.clock.now(),
    limit: 20,
    requireOverlap: false,
  }).map((r) => {
    const doc = docs.find((d) => d.file === r.file)!;
    const words = new Set(tokenize(`${doc.name ?? ''} ${doc.description ?? ''} ${doc.body}`));
    return { ...r, words: [...queryWords].filter((w) => words.has(w)) };
  });
  return {
    selector: result.shape.selector,
    selected: result.selected.map((m) => ({
      file: m.file,
      layer: m.layer,
      type: m.type,
      bytes: m.bytes,
      sectionBytes: m.sectionBytes,
      stale: m.stale,
    })),
    text: result.text,
    injectedBytes: Buffer.byteLength(result.text),
    notes: result.notes,
    ranked,
  };
}

/** Recall metrics over time, for the charts. */
export async function recallCharts(engram: Engram) {
  const shapes: RecallShape[] = engram.recallLog
    ? (await readRecallMetrics(engram.recallLog)).shapes
    : [];
  const histogram: Record<string, number> = {};
  for (const s of shapes) histogram[String(s.selected)] = (histogram[String(s.selected)] ?? 0) + 1;
  const recalled = new Set(shapes.flatMap((s) => s.files));
  const rows = await listMemories(engram);
  return {
    recalls: shapes.length,
    selectionHistogram: histogram,
    staleTrend: shapes.map((s) => ({
      at: s.at,
      ratio: s.injected > 0 ? s.staleSelected / s.injected : 0,
    })),
    budgetExhausted: shapes.filter((s) => s.budgetExhausted).length,
    neverRecalled: rows
      .filter((r) => r.status === 'active' && !recalled.has(r.file))
      .map((r) => r.file),
  };
}
