import { resolve } from 'node:path';
import type { Command } from 'commander';
import { claudeCodeMemoryDir } from '../../hooks/index.js';
import { importMemoryDir } from '../../memdir/index.js';
import {
  type CommonOptions,
  environmentFor,
  memoryDirFor,
  printJson,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

interface ImportOptions extends CommonOptions {
  from?: string;
}

/** `engram import claude-code`: Claude Code's auto memory for this project, into engram's. */
export function registerImportCommands(program: Command, io: CliIo): void {
  const command = program
    .command('import')
    .description('bring memories from another memory system into engram');
  withCommonOptions(command.command('claude-code'))
    .description(
      "import Claude Code's auto-memory directory (same format; nothing at the source changes; a re-run imports nothing twice)",
    )
    .option(
      '--from <dir>',
      "the directory to import (default: Claude Code's auto memory for this project)",
    )
    .action(async (opts: ImportOptions) => {
      const here = environmentFor(io, opts);
      // Relative to --cwd like every other path a command takes.
      const from = opts.from ? resolve(here.cwd, opts.from) : await claudeCodeMemoryDir(here);
      const to = memoryDirFor(io, opts).path;
      const result = await importMemoryDir(from, to);
      if (opts.json) return printJson(io, result);
      const count = (n: number) => `${n} ${n === 1 ? 'memory' : 'memories'}`;
      io.stdout(`Imported ${count(result.imported.length)} from ${from} into ${to}\n`);
      for (const file of result.imported) io.stdout(`  + ${file}\n`);
      for (const { file, reason } of result.skipped) io.stdout(`  - ${file}: ${reason}\n`);
    });
}
