import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  type DoctorRepair,
  type DoctorReport,
  formatFinding,
  repairMemoryDir,
} from '../../drift/index.js';
import { EngramError } from '../../util/errors.js';
import {
  CliExit,
  type CommonOptions,
  environmentFor,
  printJson,
  runtimeFor,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

interface DoctorCliOptions extends CommonOptions {
  fix?: boolean;
  log?: string;
  verifyBudgetMs: string;
}

function reportJson(report: DoctorReport, fixed: DoctorRepair | undefined) {
  return {
    ok: report.ok,
    dir: report.dir,
    findings: report.findings,
    summary: report.summary,
    crossCheck: report.crossCheck,
    ...(fixed ? { fixed } : {}),
  };
}

function printReport(io: CliIo, report: DoctorReport, fixed: DoctorRepair | undefined): void {
  if (fixed) {
    if (fixed.skipped) io.stdout(`--fix: ${fixed.skipped}.\n`);
    else
      io.stdout(
        `--fix: backup of the index at ${fixed.backup ?? '(there was no index)'}; added ${fixed.addedIndexLines.length} index line(s), dropped ${fixed.droppedIndexLines.length}.\n`,
      );
  }
  for (const f of report.findings) io.stdout(`${formatFinding(f)}\n`);
  const s = report.summary;
  io.stdout(
    `${report.ok ? 'OK' : 'PROBLEMS'}: ${s.counts.error} errors, ${s.counts.warning} warnings, ${s.counts.info} notes; ${s.active} active and ${s.revoked} revoked memories, ${s.indexLines} index lines; orphans ${s.orphans.byIndexParser}/${s.orphans.byLinkScan} and dangling ${s.dangling.byIndexParser}/${s.dangling.byLinkScan} by two methods (${s.orphans.agree && s.dangling.agree ? 'they agree' : 'they DISAGREE'}).\n`,
  );
}

export function registerDoctorCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('doctor'))
    .description(
      'find what fails silently in the memory directory (orphans counted twice, reasons, relative dates, caps, polarity, stale citations, never-recalled in each layer, duplicates); exit 1 on problems',
    )
    .option(
      '--fix',
      'repair what is safe (index lines for orphans, dangling lines dropped), after a named backup',
    )
    .option(
      '--log <file>',
      "the recall log to read for every layer (default: each layer's own, in its memory dir)",
    )
    .option(
      '--verify-budget-ms <ms>',
      "time for checking memories' citations against the project",
      '10000',
    )
    .action(async (opts: DoctorCliOptions) => {
      const runtime = runtimeFor(io, opts);
      const dir = runtime.memoryDir;
      const env = environmentFor(io, opts);
      const budget = Number(opts.verifyBudgetMs);
      if (!Number.isFinite(budget) || budget < 0)
        throw new EngramError(
          'invalid_input',
          `--verify-budget-ms needs a number of 0 or more (got "${opts.verifyBudgetMs}")`,
        );
      // The runtime builds the doctor's inputs (settings and their files, the chain's layers, the
      // logs), so the inspector diagnoses the same directory the same way.
      const options = {
        verifyBudgetMs: budget,
        projectDir: env.cwd,
        ...(opts.log ? { log: resolve(env.cwd, opts.log) } : {}),
      };
      let report = await runtime.doctor(options);
      let fixed: DoctorRepair | undefined;
      if (opts.fix) {
        fixed = await repairMemoryDir(dir, report);
        if (!fixed.skipped) report = await runtime.doctor(options);
      }
      if (opts.json) printJson(io, reportJson(report, fixed));
      else printReport(io, report, fixed);
      if (!report.ok) throw new CliExit(1);
    });
}
