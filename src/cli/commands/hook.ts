import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  claudeSettingsPath,
  DEFAULT_RECALL_BUDGET_MS,
  HOOK_EVENTS,
  type HookCommandName,
  installHooks,
  type SettingsScope,
  uninstallHooks,
} from '../../hooks/index.js';
import { EngramError } from '../../util/errors.js';
import { CliExit, type CommonOptions, printJson, withCommonOptions } from '../common.js';
import { type HookOptions, runHookCommand } from '../hook-run.js';
import type { CliIo } from '../io.js';

interface InstallOptions extends CommonOptions {
  project?: boolean;
  user?: boolean;
  local?: boolean;
  command?: string;
}

function scopeOf(opts: InstallOptions): SettingsScope {
  const chosen = [opts.project && 'project', opts.user && 'user', opts.local && 'local'].filter(
    Boolean,
  ) as SettingsScope[];
  if (chosen.length > 1)
    throw new EngramError('invalid_input', 'choose one of --project, --user, --local');
  return chosen[0] ?? 'user';
}

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
      .option('--input <file>', 'read the hook JSON from this file (deleted after reading)')
      .option(
        '--budget-ms <ms>',
        'user-prompt-submit: time allowed for recall',
        String(DEFAULT_RECALL_BUDGET_MS),
      )
      .action(async (opts: HookOptions) => {
        const code = await runHookCommand(name, io, opts);
        if (code !== 0) throw new CliExit(code);
      });
  }
  const scopes = (command: Command) =>
    command
      .option('--user', 'your Claude Code user settings (~/.claude/settings.json; the default)')
      .option('--project', "the project's shared settings (.claude/settings.json)")
      .option('--local', "the project's uncommitted settings (.claude/settings.local.json)");
  withCommonOptions(scopes(hook.command('install')))
    .description("add engram's hooks to Claude Code settings (other hooks are kept)")
    .option('--command <cmd>', 'how Claude Code should run engram', 'engram')
    .action(async (opts: InstallOptions) => {
      const env = opts.cwd ? { ...io, cwd: resolve(io.cwd, opts.cwd) } : io;
      const result = await installHooks(claudeSettingsPath(env, scopeOf(opts)), opts.command);
      if (opts.json) printJson(io, result);
      else
        io.stdout(
          `${result.changed ? 'Installed' : 'Already installed:'} engram hooks (${result.events.join(', ')}) in ${result.path}\n`,
        );
    });
  withCommonOptions(scopes(hook.command('uninstall')))
    .description("remove engram's hooks from Claude Code settings (only ours)")
    .option('--command <cmd>', 'also recognise hooks installed with this --command')
    .action(async (opts: InstallOptions) => {
      const env = opts.cwd ? { ...io, cwd: resolve(io.cwd, opts.cwd) } : io;
      const result = await uninstallHooks(claudeSettingsPath(env, scopeOf(opts)), opts.command);
      if (opts.json) printJson(io, result);
      else
        io.stdout(
          `${result.changed ? 'Removed' : 'No engram hooks in'} ${result.changed ? `engram hooks from ${result.path}` : result.path}\n`,
        );
    });
}
