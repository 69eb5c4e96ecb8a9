import { resolve } from 'node:path';
import type { Command } from 'commander';
import { createClaimVerifier, DEFAULT_VERIFY_BUDGET_MS } from '../../drift/index.js';
import {
  DEFAULT_STALE_AFTER_DAYS,
  type RecallResult,
  type RecallStats,
} from '../../recall/index.js';
import { type Clock, fixedClock, systemClock } from '../../util/clock.js';
import { EngramError } from '../../util/errors.js';
import { agentLayersFor, withAgentOption } from '../agent-options.js';
import {
  type CommonOptions,
  environmentFor,
  outputFileIn,
  printJson,
  runtimeFor,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

interface RecallCliOptions extends CommonOptions {
  agent?: string;
  surfaced?: string;
  tools?: string;
  model: string;
  now?: string;
  log: string | boolean;
  staleDays: string;
  timeout?: string;
  verify: boolean;
  verifyBudgetMs: string;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function parseNow(value: string | undefined): Clock {
  if (value === undefined) return systemClock;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new EngramError('invalid_input', `--now needs an ISO date/time (got "${value}")`);
  }
  return fixedClock(ms);
}

function positive(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new EngramError('invalid_input', `${flag} needs a number of 0 or more (got "${value}")`);
  return n;
}

/** `auto` uses the configured model when there is one; `offline` never calls a model. */
function wantsModel(opts: RecallCliOptions): boolean {
  if (opts.model === 'offline') return false;
  if (opts.model !== 'auto') {
    throw new EngramError('invalid_input', `--model is offline or auto (got "${opts.model}")`);
  }
  return true;
}

function recallJson(result: RecallResult) {
  return {
    selected: result.selected.map((m) => ({
      file: m.file,
      layer: m.layer,
      type: m.type,
      description: m.description,
      header: m.header,
      bytes: m.bytes,
      truncated: m.truncated,
    })),
    injection: result.text,
    shape: result.shape,
  };
}

function printRecall(io: CliIo, result: RecallResult): void {
  const s = result.shape;
  const by =
    s.selector === 'model'
      ? `model ${s.model}${s.fallback ? ', fell back to offline' : ''}`
      : 'offline ranker';
  if (s.skipped !== null) io.stdout(`Recall skipped: ${s.skipped.replaceAll('_', ' ')}.\n`);
  else io.stdout(`Selected ${result.selected.length} of ${s.candidates} candidates (${by}).\n`);
  for (const m of result.selected) {
    const flags = [
      `${m.bytes} bytes`,
      ...(m.truncated ? ['truncated'] : []),
      ...(m.stale ? ['stale'] : []),
      ...(m.claims ? [`claims ${m.claims.checked - m.claims.failed}/${m.claims.total} hold`] : []),
      ...(m.layer !== 'project' ? [`${m.layer} layer`] : []),
    ];
    io.stdout(`- [${m.type}] ${m.file} (${flags.join(', ')}): ${m.description ?? ''}\n`);
  }
  io.stdout(`\n--- injection (${Buffer.byteLength(result.text)} bytes) ---\n`);
  io.stdout(result.text === '' ? '(nothing injected)\n' : `${result.text}\n`);
  io.stdout('--- shape ---\n');
  for (const [key, value] of Object.entries(s)) io.stdout(`${key}: ${shapeValue(value)}\n`);
}

/** One shape field as text: lists comma-joined (as before), a map such as `layerDirs` as JSON. */
function shapeValue(value: unknown): string {
  if (Array.isArray(value) || typeof value !== 'object' || value === null) return String(value);
  return JSON.stringify(value);
}

function printStats(
  io: CliIo,
  path: string,
  stats: RecallStats,
  badLines: number,
  title = 'Recall log',
): void {
  const pct = (n: number | null) => (n === null ? 'n/a' : `${(n * 100).toFixed(1)}%`);
  io.stdout(`${title}: ${path}\n`);
  io.stdout(
    `recalls: ${stats.recalls} (ran ${stats.ran}; skipped ${JSON.stringify(stats.skipped)})\n`,
  );
  io.stdout('selected per recall:\n');
  stats.selectionCounts.forEach((n, count) => {
    const share = stats.ran ? n / stats.ran : 0;
    io.stdout(`  ${count}: ${String(n).padStart(5)}  ${'#'.repeat(Math.round(share * 40))}\n`);
  });
  io.stdout(`mean selected: ${stats.meanSelected.toFixed(2)}\n`);
  const byLayer = Object.entries(stats.injectedByLayer);
  if (byLayer.length > 0) {
    io.stdout(`injected by layer: ${byLayer.map(([l, n]) => `${l} ${n}`).join(', ')}\n`);
  }
  io.stdout(
    `stale-hit ratio: ${pct(stats.staleHitRatio)} (${stats.staleSelected} of ${stats.selectedTotal})\n`,
  );
  io.stdout(
    `claim stale-hit ratio (contradicted claims): ${pct(stats.claimStaleHitRatio)} (${stats.contradictedSelected} of ${stats.injectedTotal} injected; ${stats.verifiedSelected} verified in time)\n`,
  );
  if (stats.overTime.length > 0) {
    io.stdout('stale hits by day (age-based / contradicted claim):\n');
    for (const d of stats.overTime) {
      io.stdout(
        `  ${d.day}  ${pct(d.staleHitRatio).padStart(6)}  ${pct(d.claimStaleHitRatio).padStart(6)}  (${d.selected} selected in ${d.recalls} recalls)\n`,
      );
    }
  }
  io.stdout(`budget exhausted: ${stats.budgetExhausted}\n`);
  io.stdout(`fallbacks to offline: ${stats.fallbacks}\n`);
  io.stdout(`prefiltered (directory over the cap): ${stats.prefiltered}\n`);
  io.stdout(
    `median time: ${stats.medianDurationMs === null ? 'n/a' : `${stats.medianDurationMs} ms`}\n`,
  );
  if (badLines > 0) io.stdout(`unreadable log lines: ${badLines}\n`);
  for (const alarm of stats.alarms) io.stdout(`ALARM: ${alarm}\n`);
}

export function registerRecallCommands(program: Command, io: CliIo): void {
  withAgentOption(withCommonOptions(program.command('recall')))
    .description(
      'choose the memories for a message and print the exact bytes that would be injected',
    )
    .argument('<query>', "the user's message")
    .option(
      '--surfaced <files>',
      'comma-separated files already in the conversation (never chosen)',
    )
    .option('--tools <names>', 'comma-separated tools that succeeded since the last turn')
    .option(
      '--model <mode>',
      'offline (ranker only) or auto (the configured model, else offline)',
      'auto',
    )
    .option('--now <iso>', 'render headers as of this time (default: now)')
    .option(
      '--stale-days <n>',
      'count selected memories older than this as stale',
      String(DEFAULT_STALE_AFTER_DAYS),
    )
    .option('--timeout <ms>', 'give the model selector this long before falling back')
    .option(
      '--log <file>',
      'append the recall shape to this JSONL file (default: in the memory dir)',
    )
    .option('--no-log', 'do not append the recall shape to the metrics log')
    .option(
      '--verify-budget-ms <ms>',
      "time allowed for checking the selected memories' claims against the project",
      String(DEFAULT_VERIFY_BUDGET_MS),
    )
    .option('--no-verify', "do not check the memories' claims against the project")
    .action(async (query: string, opts: RecallCliOptions) => {
      const clock = parseNow(opts.now);
      // Every flag is checked before anything is said about the model.
      const staleAfterDays = positive(opts.staleDays, '--stale-days');
      const timeout = opts.timeout === undefined ? undefined : positive(opts.timeout, '--timeout');
      const verifyBudgetMs = positive(opts.verifyBudgetMs, '--verify-budget-ms');
      const log =
        typeof opts.log === 'string'
          ? outputFileIn(environmentFor(io, opts).cwd, opts.log, '--log')
          : undefined;
      const model = wantsModel(opts);
      const engram = runtimeFor(io, opts, { model });
      if (model && engram.model === undefined) {
        io.stderr(
          'engram: no model configured; the offline ranker selects (use --model offline to silence this)\n',
        );
      }
      const agent = opts.agent;
      // An agent's first use is prepared (and a newer snapshot said) before its recall.
      if (agent !== undefined) await agentLayersFor(io, { ...opts, agent });
      const tools = list(opts.tools);
      const verifier = opts.verify
        ? createClaimVerifier({
            projectDir: engram.environment.cwd,
            memoryDir: engram.memoryDir,
            budgetMs: verifyBudgetMs,
          })
        : undefined;
      // The default log is the runtime's, shared by every door (never created just to log a read).
      const result = await engram
        .recall({
          query,
          clock,
          alreadySurfaced: list(opts.surfaced),
          staleAfterDays,
          ...(opts.tools !== undefined ? { recentTools: tools } : {}),
          ...(timeout !== undefined ? { selectorTimeoutMs: timeout } : {}),
          ...(opts.log === false ? { log: false as const } : {}),
          ...(log !== undefined ? { log } : {}),
          ...(verifier ? { verifier } : {}),
          ...(agent !== undefined ? { agent } : {}),
        })
        .finally(() => verifier?.dispose());
      for (const note of result.notes) io.stderr(`engram: ${note}\n`);
      if (opts.json) printJson(io, recallJson(result));
      else printRecall(io, result);
    });

  withCommonOptions(program.command('stats'))
    .description('summarise the recall log: selection counts, stale-hit ratio, budget exhaustion')
    .option('--log <file>', 'the JSONL log to read (default: the one in the memory dir)')
    .action(async (opts: CommonOptions & { log?: string }) => {
      const engram = runtimeFor(io, opts);
      const {
        log: path,
        stats,
        badLines,
        layers,
      } = await engram.stats(opts.log ? { log: resolve(engram.environment.cwd, opts.log) } : {});
      // Each further layer's own log (the user layer's, written from every project) after the
      // project's, labelled with its layer, as list and audit label their memories.
      const more = layers.map((l) => ({
        layer: l.layer,
        log: l.log,
        ...l.stats,
        badLines: l.badLines,
      }));
      if (opts.json) printJson(io, { log: path, ...stats, badLines, layers: more });
      else {
        printStats(io, path, stats, badLines);
        for (const l of layers) {
          io.stdout('\n');
          printStats(io, l.log, l.stats, l.badLines, `Recall log of the ${l.layer} layer`);
        }
      }
    });
}
