/**
 * Runs a labeled set through real recall: the memories are written to a temporary directory with
 * the normal save path (file + index line, mtimes set to their ages), then every prompt is recalled
 * with the offline ranker exactly as a turn would be, and what it selected is scored. A set with
 * user-layer memories gets a temporary ENGRAM_HOME too: its user directory is where
 * `resolveMemoryChain` puts it, and recall draws on the chain (project first) as a real turn does.
 */
import { mkdir, mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MemoryLayer, resolveMemoryChain } from '../../config/memory-chain.js';
import { saveMemory } from '../../memdir/memory-file.js';
import { recall } from '../../recall/recall.js';
import { type LabeledMemory, type LabeledSet, labeledMemoryId } from './labeled-set.js';
import {
  DEFAULT_RECALL_SET_TARGETS,
  missedTargets,
  type PromptOutcome,
  type RecallSetScore,
  type RecallSetTargets,
  scoreRecallSet,
} from './score.js';

const DAY_MS = 86_400_000;

export interface RecallSetReport extends RecallSetScore {
  set: string;
  memories: number;
  /** How many memories each layer holds (`project`, and `user` when the set has one). */
  layers: Record<string, number>;
  targets: RecallSetTargets;
  /** Targets missed: 'precision', 'recall', 'silence'. */
  missed: string[];
  pass: boolean;
  /** Prompts whose selection differs from their gold: what was missed and what was extra. */
  mistakes: Array<{ prompt: string; gold: string[]; selected: string[] }>;
  outcomes: PromptOutcome[];
}

export interface RunRecallSetOptions {
  /** The time recall runs at (default now); memory ages are relative to it. */
  nowMs?: number;
  targets?: RecallSetTargets;
}

export async function runRecallSet(
  set: LabeledSet,
  options: RunRecallSetOptions = {},
): Promise<RecallSetReport> {
  const nowMs = options.nowMs ?? Date.now();
  const root = await mkdtemp(join(tmpdir(), 'engram-eval-recall-'));
  try {
    const dir = join(root, 'project', 'memory');
    const chain = resolveMemoryChain({
      project: { dir, trusted: true },
      engramHome: join(root, 'home'),
    });
    const layers: Record<string, number> = {};
    for (const m of set.memories) layers[m.scope] = (layers[m.scope] ?? 0) + 1;
    // Without user memories recall runs on the project directory alone, as it always has here.
    const drawn = chain.filter((l) => l.layer === 'project' || layers[l.layer] !== undefined);
    for (const layer of drawn) await mkdir(layer.dir, { recursive: true });
    for (const m of set.memories) await writeMemory(layerDir(drawn, m), m, nowMs);
    const outcomes: PromptOutcome[] = [];
    for (const p of set.prompts) {
      const result = await recall({
        dir,
        ...(drawn.length > 1 ? { layers: drawn } : {}),
        query: p.prompt,
        now: nowMs,
      });
      outcomes.push({
        prompt: p.prompt,
        gold: p.gold,
        selected: result.selected.map((s) => labeledMemoryId(s.layer, s.file)),
      });
    }
    const score = scoreRecallSet(outcomes);
    const targets = options.targets ?? DEFAULT_RECALL_SET_TARGETS;
    const missed = missedTargets(score, targets);
    const mistakes = outcomes
      .filter((o) => [...o.selected].sort().join() !== [...o.gold].sort().join())
      .map((o) => ({ prompt: o.prompt, gold: [...o.gold], selected: [...o.selected] }));
    return {
      set: set.name,
      memories: set.memories.length,
      layers,
      ...score,
      targets,
      missed,
      pass: missed.length === 0,
      mistakes,
      outcomes,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function layerDir(chain: readonly MemoryLayer[], m: LabeledMemory): string {
  const layer = chain.find((l) => l.layer === m.scope);
  if (!layer) throw new Error(`no ${m.scope} layer in the memory chain`);
  return layer.dir;
}

async function writeMemory(dir: string, m: LabeledMemory, nowMs: number): Promise<void> {
  await saveMemory(dir, {
    file: m.file,
    name: m.name ?? m.file.replace(/\.md$/, ''),
    description: m.description,
    type: m.type,
    body: m.body ?? m.description,
  });
  const seconds = (nowMs - (m.ageDays ?? 1) * DAY_MS) / 1000;
  await utimes(join(dir, m.file), seconds, seconds);
}

const userLayer = (r: RecallSetReport) =>
  r.layers.user === undefined ? '' : ` (${r.layers.user} in the user layer)`;

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
const fixed3 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));

export function formatRecallSetReport(r: RecallSetReport): string {
  let out =
    `recall set ${r.set}: ${r.memories} memories${userLayer(r)}, ${r.relevantPrompts} relevant and ${r.unrelatedPrompts} unrelated prompts\n` +
    `  precision of what was selected  ${fixed3(r.precision)}  (${r.correct}/${r.selected}; target ≥ ${r.targets.precision})\n` +
    `  gold memories recalled          ${pct(r.recall)}  (${r.goldRecalled}/${r.goldTotal}; target ≥ ${pct(r.targets.recall)})\n` +
    `  unrelated prompts → nothing     ${pct(r.silence)}  (${r.unrelatedSilent}/${r.unrelatedPrompts}; target ${pct(r.targets.silence)})\n` +
    `  ${r.pass ? 'PASS' : `MISSED: ${r.missed.join(', ')}`}\n`;
  if (r.mistakes.length > 0) {
    out += '\nprompts whose selection differs from gold:\n';
    for (const m of r.mistakes) {
      out += `  "${m.prompt}"\n    gold: ${m.gold.join(', ') || '(nothing)'}\n    selected: ${m.selected.join(', ') || '(nothing)'}\n`;
    }
  }
  return out;
}

/** One line per set: the three numbers against their targets, and whether the set passed. */
export function formatRecallSetTable(reports: readonly RecallSetReport[]): string {
  const width = Math.max(3, ...reports.map((r) => r.set.length));
  let out = `${'set'.padEnd(width)}  memories  prompts (rel/unrel)  precision       gold recalled       unrelated → nothing\n`;
  for (const r of reports) {
    const prompts = `${r.relevantPrompts}/${r.unrelatedPrompts}`;
    out +=
      `${r.set.padEnd(width)}  ${String(r.memories).padStart(8)}  ${prompts.padStart(19)}  ` +
      `${`${fixed3(r.precision)} (${r.correct}/${r.selected})`.padEnd(14)}  ` +
      `${`${pct(r.recall)} (${r.goldRecalled}/${r.goldTotal})`.padEnd(18)}  ` +
      `${`${r.unrelatedSilent}/${r.unrelatedPrompts}`.padEnd(8)}  ${r.pass ? 'PASS' : `MISSED: ${r.missed.join(', ')}`}\n`;
  }
  return `${out}(one --set at a time lists the prompts whose selection differs from gold)\n`;
}
