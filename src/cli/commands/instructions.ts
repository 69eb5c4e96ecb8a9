import type { Command } from 'commander';
import {
  type InstructionReport,
  type LoadedInstructionFile,
  loadInstructions,
  renderInstructionsPrompt,
  rulesFor,
} from '../../instructions/index.js';
import { EngramError } from '../../util/errors.js';
import { directoryProblem, environmentFor, printJson } from '../common.js';
import type { CliIo } from '../io.js';

interface InstructionsOptions {
  cwd?: string;
  json?: boolean;
  for?: string;
}

export function fileJson(f: LoadedInstructionFile) {
  return {
    path: f.path,
    realPath: f.realPath,
    type: f.type,
    parent: f.parent ?? null,
    depth: f.depth,
    globs: f.globs ?? null,
    conditional: f.conditional,
    size: f.size,
    chars: f.chars,
    tooLarge: f.tooLarge,
    contentDiffersFromDisk: f.contentDiffersFromDisk,
    // What enters the prompt for this file, so a host can show or diff one file at a time.
    content: f.content,
  };
}

export function registerInstructionsCommands(program: Command, io: CliIo): void {
  program
    .command('instructions')
    .description(
      'list the instruction files (AGENTS.md, CLAUDE.md, rules) that would load, in order, and the assembled prompt section',
    )
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--json', 'print machine-readable JSON')
    .option('--for <path>', 'add the conditional rules (paths: globs) that apply to this file')
    .action(async (opts: InstructionsOptions) => {
      const environment = environmentFor(io, opts);
      const problem = directoryProblem(environment.cwd);
      if (problem) throw new EngramError('not_found', `${problem}: ${environment.cwd}`);
      // Always fresh: a person asking what loads wants today's files, not a cached view.
      const result = await loadInstructions({ environment, cache: false });
      const matched = opts.for === undefined ? [] : rulesFor(opts.for, result);
      const files = [...result.files, ...matched];
      const prompt = matched.length > 0 ? renderInstructionsPrompt(files) : result.prompt;
      if (opts.json) {
        printJson(io, {
          cwd: result.cwd,
          for: opts.for ?? null,
          files: files.map(fileJson),
          conditionalRules: result.conditionalRules.map(fileJson),
          prompt,
          reports: result.reports,
        });
        return;
      }
      for (const report of result.reports) io.stderr(formatReport(report));
      io.stdout(listing(result.cwd, files, result.conditionalRules, matched, opts.for));
      if (prompt !== '') io.stdout(`\n${prompt}`);
    });
}

function listing(
  cwd: string,
  files: LoadedInstructionFile[],
  conditional: LoadedInstructionFile[],
  matched: LoadedInstructionFile[],
  forPath: string | undefined,
): string {
  const lines: string[] = [];
  if (files.length === 0) lines.push(`No instruction files load for ${cwd}.`);
  else {
    lines.push(`Instruction files for ${cwd}, in load order (later files take precedence):`);
    files.forEach((f, i) => {
      lines.push(`${String(i + 1).padStart(4)}  ${row(f)}`);
    });
  }
  const waiting = conditional.filter((r) => !matched.includes(r));
  if (waiting.length > 0) {
    lines.push(
      forPath === undefined
        ? 'Conditional rules (load when a matching file is touched; see --for):'
        : `Conditional rules that do not apply to ${forPath}:`,
    );
    for (const r of waiting) lines.push(`      ${row(r)}`);
  }
  return `${lines.join('\n')}\n`;
}

function row(f: LoadedInstructionFile): string {
  const notes: string[] = [];
  if (f.parent) notes.push(`included by ${f.parent}`);
  if (f.globs) notes.push(`paths: ${f.globs.join(', ')}`);
  if (f.tooLarge) notes.push(`too large: ${f.chars.toLocaleString('en-US')} characters`);
  const suffix = notes.length > 0 ? `  (${notes.join('; ')})` : '';
  return `${f.type.padEnd(7)}  ${formatSize(f.size).padStart(8)}  ${f.path}${suffix}`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function formatReport(r: InstructionReport): string {
  const label = r.severity === 'warning' ? 'warning' : 'note';
  return `engram: ${label}: ${r.path}: ${r.message}\n`;
}
