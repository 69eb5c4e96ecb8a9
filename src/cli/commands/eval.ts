import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { cutoffReport, formatCutoffReport } from '../../eval/cutoff-report.js';
import { defaultLocomoPath, LOCOMO_DATA_ENV, loadLocomo } from '../../eval/locomo.js';
import {
  buildReport,
  CATEGORY_NAMES,
  DEFAULT_LOCOMO_TARGETS,
  formatReport,
  missedLocomoTargets,
} from '../../eval/report.js';
import { bm25Ranker, engramRanker, type RankerRun, runRanker } from '../../eval/runner.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { EngramError } from '../../util/errors.js';
import { CliExit, environmentFor, printJson } from '../common.js';
import type { CliIo } from '../io.js';

interface EvalLocomoOptions {
  data?: string;
  k: string;
  json?: boolean;
  dump?: string;
  baseline?: string;
  check?: boolean;
  cwd?: string;
}

export function parseKs(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const ks = parts.map(Number);
  if (parts.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1)) {
    throw new EngramError(
      'invalid_input',
      `--k needs positive whole numbers like 5,10,25,50: ${value}`,
    );
  }
  return [...new Set(ks)].sort((a, b) => a - b);
}

function rankingsJsonl(run: RankerRun): string {
  return run.rankings.map((r) => `${JSON.stringify(r)}\n`).join('');
}

export function registerEvalCommands(program: Command, io: CliIo): void {
  const evalCommand = program
    .command('eval')
    .description('measure recall quality on public benchmarks');
  evalCommand
    .command('locomo')
    .description(
      "rank each LoCoMo conversation's observations for its questions; report evidence recall@k",
    )
    .option('--data <path>', 'locomo10.zip, a directory holding it or its JSON, or one JSON file')
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--k <list>', 'cut-offs, comma-separated', '5,10,25,50')
    .option('--json', 'print machine-readable JSON')
    .option('--dump <file>', 'write one JSON line per question with the ranked dialog ids')
    .option('--baseline <name>', 'also run a baseline in the same run (bm25)')
    .option(
      '--check',
      `exit 1 unless R@k over all conversations meets ${Object.entries(DEFAULT_LOCOMO_TARGETS)
        .map(([k, v]) => `R@${k} >= ${v}`)
        .join(', ')}`,
    )
    .action(async (opts: EvalLocomoOptions) => {
      const ks = parseKs(opts.k);
      const unmeasured = Object.keys(DEFAULT_LOCOMO_TARGETS).filter((k) => !ks.includes(Number(k)));
      if (opts.check && unmeasured.length > 0) {
        throw new EngramError(
          'invalid_input',
          `--check needs --k to include ${unmeasured.join(' and ')} (the targets are at those cut-offs)`,
        );
      }
      if (opts.baseline !== undefined && opts.baseline !== 'bm25') {
        throw new EngramError('invalid_input', `unknown baseline: ${opts.baseline} (known: bm25)`);
      }
      const configured = opts.data ?? defaultLocomoPath(io.env);
      const here = environmentFor(io, opts);
      const data = configured !== undefined ? resolve(here.cwd, configured) : undefined;
      if (data === undefined) {
        throw new EngramError(
          'not_found',
          `no LoCoMo data given: pass --data <zip|dir|json> or set ${LOCOMO_DATA_ENV}. ` +
            'The data set is not shipped with engram (its licence is non-commercial): get ' +
            "locomo10.json from the LoCoMo authors' release (snap-research/locomo, data/locomo10.json).",
        );
      }
      const conversations = loadLocomo(data);
      const runs: Record<string, RankerRun> = {
        engram: runRanker(conversations, engramRanker, ks),
      };
      if (opts.baseline === 'bm25') runs.bm25 = runRanker(conversations, bm25Ranker, ks);
      if (opts.dump !== undefined) {
        const dump = resolve(here.cwd, opts.dump);
        await mkdir(dirname(dump), { recursive: true });
        await writeFileAtomic(dump, rankingsJsonl(runs.engram!));
        if (runs.bm25)
          await writeFileAtomic(
            `${dump.replace(/\.jsonl$/, '')}.bm25.jsonl`,
            rankingsJsonl(runs.bm25),
          );
      }
      const report = {
        ...buildReport(data, conversations, ks, runs),
        cutoff: cutoffReport(conversations),
      };
      if (opts.json) printJson(io, report);
      else io.stdout(formatReport(report) + formatCutoffReport(report.cutoff, CATEGORY_NAMES));
      if (opts.check) {
        const missed = missedLocomoTargets(report);
        if (missed.length > 0) {
          io.stderr(`LoCoMo targets missed: ${missed.join('; ')}\n`);
          throw new CliExit(1);
        }
      }
    });
  evalCommand
    .command('recall')
    .description(
      'run real offline recall over a labeled set; report precision, gold recall and silence on unrelated prompts',
    )
    .option(
      '--set <path>',
      'a labeled set (.json, .yaml) or a directory of them; repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--json', 'print machine-readable JSON')
    .option('--check', 'exit 1 when a target is missed')
    .action(async (opts: { set: string[]; json?: boolean; check?: boolean; cwd?: string }) => {
      const here = environmentFor(io, opts);
      if (opts.set.length === 0) {
        throw new EngramError('invalid_input', 'eval recall needs --set <file or directory>');
      }
      // Loaded here: zod and yaml are for this command only, never on every CLI start.
      const [labeled, run] = await Promise.all([
        import('../../eval/recall/labeled-set.js'),
        import('../../eval/recall/run-set.js'),
      ]);
      const files: string[] = [];
      for (const path of opts.set)
        files.push(...(await labeled.labeledSetFiles(resolve(here.cwd, path))));
      const reports = [];
      for (const file of files)
        reports.push(await run.runRecallSet(await labeled.loadLabeledSet(file)));
      const pass = reports.every((r) => r.pass);
      // One set prints its full report, as it always has; several print one line each.
      if (reports.length === 1) {
        if (opts.json) printJson(io, reports[0]);
        else io.stdout(run.formatRecallSetReport(reports[0]!));
      } else if (opts.json) printJson(io, { sets: reports, pass });
      else io.stdout(run.formatRecallSetTable(reports));
      if (opts.check && !pass) throw new CliExit(1);
    });
}
