import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  combineSessionListers,
  type DreamInvariants,
  type DreamOutcome,
  type DryRunReport,
  formatProgress,
  type GateDecision,
  type SessionRef,
  transcriptDirectoryLister,
} from '../../dream/index.js';
import type { ModelResolution } from '../../llm/resolve-model.js';
import { EngramError } from '../../util/errors.js';
import {
  CliExit,
  type CommonOptions,
  printJson,
  runtimeFor,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

interface DreamOptions extends CommonOptions {
  force?: boolean;
  dryRun?: boolean;
  transcripts?: string[];
  session?: string;
  maxTurns?: string;
}

/** Exit status of a run stopped by Ctrl-C, as shells report a SIGINT death. */
const EXIT_INTERRUPTED = 130;

const gateJson = (g: GateDecision) =>
  g.kind === 'pass'
    ? { gate: g.gate, kind: g.kind, detail: g.detail }
    : { gate: g.gate, kind: g.kind, reason: g.reason };
const sessionJson = (s: SessionRef) => ({
  id: s.id,
  path: s.path,
  mtime: new Date(s.mtimeMs).toISOString(),
});
const gateLine = (g: GateDecision) =>
  g.kind === 'pass' ? `${g.gate} gate passed: ${g.detail}` : `${g.gate} gate stops: ${g.reason}`;

/**
 * Folders named with --transcripts must exist: a typo would otherwise read as "0 sessions" and
 * the pass would silently never be due. (A default folder may be missing: no sessions there yet.)
 */
async function transcriptFolders(cwd: string, dirs: readonly string[]): Promise<string[]> {
  return Promise.all(
    dirs.map(async (d) => {
      const dir = resolve(cwd, d);
      const info = await stat(dir).catch(() => undefined);
      if (!info?.isDirectory())
        throw new EngramError(
          'not_found',
          `--transcripts ${d}: ${info ? 'not a folder' : 'no such folder'} (${dir})`,
        );
      return dir;
    }),
  );
}

function parseMaxTurns(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new EngramError('invalid_input', `--max-turns needs a positive integer, got "${value}"`);
  return n;
}

export function registerDreamCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('dream'))
    .description(
      'consolidate memories: merge duplicates, date, revoke contradicted facts, prune the index',
    )
    .option('--force', 'skip the time and session gates (the lock still applies)')
    .option('--dry-run', 'print which gate would stop a run and why, without running')
    .option(
      '--transcripts <dir...>',
      "folders of session transcripts (*.jsonl) to review (default: Claude Code's for this project)",
    )
    .option('--session <id>', 'the session still running: not counted, not reviewed')
    .option('--max-turns <n>', 'turn limit for the consolidation agent (default 30)')
    .action(async (opts: DreamOptions) => {
      const engram = runtimeFor(io, opts, { model: true });
      const memoryDir = engram.memoryDir;
      const model: ModelResolution = engram.model
        ? { ok: true, model: engram.model, description: engram.modelDescription ?? '' }
        : { ok: false, reason: engram.modelProblem ?? '' };
      // The project's sessions as every door counts them, unless folders are named here.
      const sessions = opts.transcripts?.length
        ? combineSessionListers(
            ...(await transcriptFolders(engram.environment.cwd, opts.transcripts)).map((d) =>
              transcriptDirectoryLister(d),
            ),
          )
        : engram.sessions;
      const maxTurns = parseMaxTurns(opts.maxTurns);
      if (!opts.dryRun && !model.ok) {
        throw new EngramError(
          'no_model',
          `dream needs a model to run. ${model.reason}\nSee which gates would stop a run without one: engram dream --dry-run`,
        );
      }
      // Asked for by hand: the gates are checked afresh, not throttled by an earlier scan.
      const dreamer = await engram.dreamer({
        sessions,
        sharedThrottle: false,
        ...(maxTurns === undefined ? {} : { maxTurns }),
      });
      const context = {
        force: opts.force === true,
        ...(opts.session === undefined ? {} : { currentSessionId: opts.session }),
      };
      if (opts.dryRun) {
        const report = await dreamer.dryRun(context);
        printDryRun(io, opts, memoryDir, report, model);
        return;
      }
      const controller = new AbortController();
      // Ctrl-C stops the agent; the dreamer then rolls the lock back so the next session retries.
      const interrupt = () => {
        io.stderr('engram: dream: interrupted, rolling back the lock…\n');
        controller.abort(new EngramError('aborted', 'interrupted by the user'));
      };
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      let lastLine = '';
      let outcome: DreamOutcome;
      try {
        outcome = await dreamer.maybeDream({
          ...context,
          signal: controller.signal,
          onGate: (g) => io.stderr(`engram: dream: ${gateLine(g)}\n`),
          onProgress: (p) => {
            const line = formatProgress(p);
            if (line !== lastLine) io.stderr(`engram: dream: ${line}\n`);
            lastLine = line;
          },
        });
      } finally {
        process.removeListener('SIGINT', interrupt);
        process.removeListener('SIGTERM', interrupt);
      }
      printOutcome(io, opts, memoryDir, outcome);
      const code = exitCodeForOutcome(outcome);
      if (code !== 0) throw new CliExit(code);
    });
}

function directoryCheck(label: string, inv: DreamInvariants): string {
  return inv.ok
    ? `${label}: OK (${inv.memoriesAfter} memories, ${inv.indexEntriesAfter} index lines${inv.resolved.length ? `; fixed ${inv.resolved.length} problem(s) found before the pass` : ''}${inv.longIndexLines ? `; ${inv.longIndexLines} index line(s) over 150 characters` : ''}).\n`
    : `${label} found problems this pass left:\n${inv.violations.map((v) => `  ${v.kind}: ${v.message}\n`).join('')}Fix them, or run \`engram index --rebuild\` for index problems.\n`;
}

/**
 * 0: ran cleanly, or not due yet (time, throttle, sessions). 1: could not run when asked (disabled,
 * lock busy), the run failed or hit its turn limit, or it left the directory inconsistent.
 * 130: interrupted.
 */
export function exitCodeForOutcome(outcome: DreamOutcome): number {
  if (outcome.kind === 'error') return 1;
  if (outcome.kind === 'stopped')
    return outcome.gate === 'enabled' || outcome.gate === 'lock' ? 1 : 0;
  if (outcome.run.status === 'aborted') return EXIT_INTERRUPTED;
  // An error, or a pass cut off by its turn limit: it did not finish and the lock was rolled back.
  if (outcome.run.status !== 'completed') return 1;
  return outcome.run.invariants.ok && outcome.run.userInvariants?.ok !== false ? 0 : 1;
}

function printDryRun(
  io: CliIo,
  opts: DreamOptions,
  memoryDir: string,
  report: DryRunReport,
  model: ModelResolution,
): void {
  if (opts.json) {
    printJson(io, {
      memoryDir,
      dryRun: true,
      wouldRun: report.stoppedAt === undefined && model.ok,
      stoppedAt: report.stoppedAt ?? null,
      reason: report.reason ?? (model.ok ? null : model.reason),
      gates: report.gates.map(gateJson),
      sessions: report.sessions.map(sessionJson),
      lastConsolidatedAt:
        report.lastConsolidatedAt > 0 ? new Date(report.lastConsolidatedAt).toISOString() : null,
      model: model.ok
        ? { configured: true, description: model.description }
        : { configured: false, reason: model.reason },
    });
    return;
  }
  const lines = report.gates.map(
    (g) =>
      `  ${g.kind === 'pass' ? 'pass' : 'STOP'}  ${g.gate}: ${g.kind === 'pass' ? g.detail : g.reason}`,
  );
  const verdict =
    report.stoppedAt !== undefined
      ? `Would stop at the ${report.stoppedAt} gate: ${report.reason}.`
      : model.ok
        ? `Would run: consolidate ${memoryDir} reviewing ${report.sessions.length} session(s).`
        : 'Every gate passes, but a run needs a model (see below).';
  io.stdout(
    `${lines.join('\n')}\n${verdict}\nmodel: ${model.ok ? model.description : `not configured. ${model.reason}`}\n`,
  );
}

function printOutcome(
  io: CliIo,
  opts: DreamOptions,
  memoryDir: string,
  outcome: DreamOutcome,
): void {
  if (opts.json) {
    const base = { memoryDir, dryRun: false, gates: outcome.gates.map(gateJson) };
    if (outcome.kind === 'stopped')
      printJson(io, { ...base, ran: false, stoppedAt: outcome.gate, reason: outcome.reason });
    else if (outcome.kind === 'error')
      printJson(io, {
        ...base,
        ran: false,
        stoppedAt: null,
        error: { code: outcome.error.code, message: outcome.error.message },
      });
    else {
      const { run } = outcome;
      printJson(io, {
        ...base,
        ran: true,
        status: run.status,
        lock: outcome.lock,
        sessions: outcome.sessions.map(sessionJson),
        progress: run.progress,
        invariants: run.invariants,
        userInvariants: run.userInvariants ?? null,
        usage: run.usage,
        summary: run.finalText,
        error: run.error ? { code: run.error.code, message: run.error.message } : null,
      });
    }
    return;
  }
  if (outcome.kind === 'stopped') {
    io.stdout(`Not consolidating (${outcome.gate} gate): ${outcome.reason}.\n`);
    return;
  }
  if (outcome.kind === 'error') {
    io.stderr(`engram: dream failed: ${outcome.error.message}\n`);
    return;
  }
  const { run } = outcome;
  const p = run.progress;
  const done = `${p.filesTouched.length} file(s) touched, ${p.sessionsReviewed.length}/${p.sessionsToReview} sessions reviewed, ${p.turns} turn(s)`;
  const head =
    run.status === 'completed'
      ? `Consolidated ${memoryDir}: ${done}.`
      : run.status === 'max_turns'
        ? `Consolidation stopped at the turn limit before finishing (${done}); its edits are kept and the lock was rolled back so the next session continues. Raise the limit with --max-turns.`
        : `Consolidation ${run.status === 'aborted' ? 'aborted' : `failed${run.error ? `: ${run.error.message}` : ''}`}; the lock was rolled back so the next session retries.`;
  // Once a file went to the user layer, each line names the layer it was written in.
  const layered = p.touchedIn.some((f) => f.layer !== 'project');
  const files = p.touchedIn
    .map((f) =>
      layered ? `  ${f.layer}: ${f.layer === 'project' ? f.file : f.path}\n` : `  ${f.file}\n`,
    )
    .join('');
  const check =
    directoryCheck('Directory check', run.invariants) +
    (run.userInvariants && (layered || !run.userInvariants.ok)
      ? directoryCheck('User layer check', run.userInvariants)
      : '');
  const summary = run.finalText.trim() ? `${run.finalText.trim()}\n` : '';
  io.stdout(`${head}\n${files}${check}${summary}`);
}
