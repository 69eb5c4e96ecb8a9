/**
 * The `engram eval locomo` result: a JSON-ready structure and its plain-text table.
 */
import type { LocomoConversation } from './locomo.js';
import { DEV_SAMPLES } from './locomo.js';
import type { Breakdown, Summary } from './metric.js';
import type { RankerRun } from './runner.js';

export const CATEGORY_NAMES: Record<string, string> = {
  '1': 'multi-hop',
  '2': 'temporal',
  '3': 'open-domain',
  '4': 'single-hop',
  '5': 'adversarial',
};

export interface RankerReport {
  msPerQuery: number;
  dev: Breakdown;
  heldout: Breakdown;
  all: Breakdown;
}

export interface LocomoReport {
  data: string;
  conversations: number;
  questions: number;
  observations: number;
  k: number[];
  splits: { dev: string[]; heldout: string[] };
  rankers: Record<string, RankerReport>;
}

export function buildReport(
  data: string,
  conversations: readonly LocomoConversation[],
  ks: readonly number[],
  runs: Record<string, RankerRun>,
): LocomoReport {
  const samples = conversations.map((c) => c.sample);
  const isDev = (s: string) => DEV_SAMPLES.includes(s.replace(/^conv-/, ''));
  const rankers: Record<string, RankerReport> = {};
  for (const [name, run] of Object.entries(runs)) {
    rankers[name] = { msPerQuery: Math.round(run.msPerQuery * 1000) / 1000, ...run.splits };
  }
  return {
    data,
    conversations: conversations.length,
    questions: conversations.reduce((n, c) => n + c.questions.length, 0),
    observations: conversations.reduce((n, c) => n + c.observations.length, 0),
    k: [...ks],
    splits: { dev: samples.filter(isDev), heldout: samples.filter((s) => !isDev(s)) },
    rankers,
  };
}

function cells(values: Record<string, number>, ks: readonly number[]): string {
  return ks.map((k) => (values[String(k)] ?? 0).toFixed(1).padStart(6)).join('');
}

function row(label: string, s: Summary, ks: readonly number[]): string {
  return (
    `  ${label.padEnd(25)}${String(s.scored).padStart(5)}${cells(s.recall, ks)}  |` +
    `${cells(s.hitAny, ks)}  |${s.ceiling.recall.toFixed(1).padStart(6)}\n`
  );
}

export function formatReport(report: LocomoReport): string {
  const ks = report.k;
  const head = ks.map((k) => `R@${k}`.padStart(6)).join('');
  const hits = ks.map((k) => `H@${k}`.padStart(6)).join('');
  let out =
    `LoCoMo evidence recall over observations: ${report.conversations} conversations, ` +
    `${report.questions} questions, ${report.observations} observations\n` +
    `data: ${report.data}\n` +
    `dev split: ${report.splits.dev.join(', ') || '-'}; held out: ${report.splits.heldout.join(', ') || '-'}\n` +
    "R@k = share of a question's evidence covered by the top k (paper, Table 3); " +
    'H@k = at least one covered; ceiling = best any ranking can reach\n';
  for (const [name, r] of Object.entries(report.rankers)) {
    out += `\n${name} (${r.msPerQuery.toFixed(3)} ms/query)\n`;
    out += `  ${'questions'.padEnd(25)}${'n'.padStart(5)}${head}  |${hits}  |  ceil\n`;
    for (const split of ['dev', 'heldout', 'all'] as const) {
      out += row(`${split}, all categories`, r[split].overall, ks);
      out += row(`${split}, categories 1-4`, r[split].answerable, ks);
    }
    for (const [c, s] of Object.entries(r.all.categories)) {
      out += row(`all, ${c} ${CATEGORY_NAMES[c] ?? ''}`.trimEnd(), s, ks);
    }
  }
  return out;
}
