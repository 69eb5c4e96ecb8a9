import type { Command } from 'commander';
import { DEFAULT_RECALL_BUDGET_MS, HOOK_EVENTS, type HookCommandName } from '../../hooks/index.js';
import { CliExit, withCommonOptions } from '../common.js';
import { type HookOptions, runHookCommand } from '../hook-run.js';
import type { CliIo } from '../io.js';
import { registerHookInstallCommands } from './hook-install.js';

export function registerHookCommands(program: Command, io: CliIo): void {
  const hook = program
    .command('hook')
    .description(
      'Claude Code hooks: read the hook JSON on stdin, print the JSON Claude Code reads',
    );
  for (const name of Object.keys(HOOK_EVENTS) as HookCommandName[]) {
    withCommonOptions(hook.command(name))
      .description(`handle Claude Code's ${HOOK_EVENTS[name]} event`)
      .option('--no-model', 'no model calls: offline recall, no extraction or notes')
      .option(
        '--no-verify',
        "user-prompt-submit: no claim verification marks in the memories' headers",
      )
      .option('--wait', 'stop: run extraction in this process instead of a detached one')
      .option(
        '--input <file>',
        "read the hook JSON from this file, not stdin (only the stop hook's own hand-off in $ENGRAM_HOME/hooks is deleted after reading)",
      )
      .option(
        '--budget-ms <ms>',
        'user-prompt-submit: time allowed for recall',
        String(DEFAULT_RECALL_BUDGET_MS),
      )
      .action(async (opts: HookOptions) => {
        const code = await runHookCommand(name, io, opts);
        if (code !== 0) throw new CliExit(code);
      })
      // A usage error (an unknown option, a missing value) is a failed hook like any other: `{}`
      // and exit 1, never commander's 2, which would erase the prompt on UserPromptSubmit. Help
      // still exits 0; commander has already said what was wrong on stderr.
      .exitOverride((error) => {
        if (error.exitCode === 0) throw error;
        io.stdout('{}\n');
        throw new CliExit(1);
      });
  }
  registerHookInstallCommands(hook, io);
  // An event this version does not know (hooks written by a newer engram) is a failed hook too:
  // `{}` and exit 1; commander's 2 would block a PreToolUse, a Stop or the prompt.
  hook.on('command:*', (operands: string[]) => {
    io.stderr(`error: unknown command '${operands[0]}'\n`);
    io.stdout('{}\n');
    throw new CliExit(1);
  });
}
