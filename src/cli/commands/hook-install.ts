/**
 * `engram hook install|uninstall`: engram's hooks in a Claude Code settings file, for people who
 * prefer settings files to the plugin. The command written is absolute (this Node and this build's
 * hook entry unless `--command` says otherwise) and is run once before anything is written, so a hook can
 * never fail later with "engram: not found". The same file turns Claude Code's own auto memory
 * off; uninstall puts back exactly what it held.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import {
  claudeSettingsPath,
  installHooks,
  restoreClaudeAutoMemory,
  type SettingsScope,
  turnOffClaudeAutoMemory,
  uninstallHooks,
} from '../../hooks/index.js';
import { EngramError } from '../../util/errors.js';
import { type CommonOptions, printJson, withCommonOptions } from '../common.js';
import type { CliIo } from '../io.js';

interface InstallOptions extends CommonOptions {
  project?: boolean;
  user?: boolean;
  local?: boolean;
  command?: string;
  autoMemory?: boolean;
}

function scopeOf(opts: InstallOptions): SettingsScope {
  const chosen = [opts.project && 'project', opts.user && 'user', opts.local && 'local'].filter(
    Boolean,
  ) as SettingsScope[];
  if (chosen.length > 1) throw new Error('choose one of --project, --user, --local');
  return chosen[0] ?? 'user';
}

/** A word for a POSIX shell: double-quoted, with the characters special inside quotes escaped. Pure. */
export function shellQuote(word: string): string {
  return `"${word.replace(/(["\\$`])/g, '\\$1')}"`;
}

/**
 * The built CLI to point Claude Code at: the entry that is running, else the package's build
 * (dist/cli/main.js, found from this module whether it runs bundled or from source).
 */
function installableMainPath(io: CliIo): string | undefined {
  if (io.cliEntry !== undefined && existsSync(io.cliEntry)) return io.cliEntry;
  for (const relative of ['../main.js', '../../../dist/cli/main.js']) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path) && path.endsWith(join('dist', 'cli', 'main.js'))) return path;
  }
  return undefined;
}

/**
 * How Claude Code should run this engram: this Node binary and the lean hook entry beside the CLI
 * (dist/cli/hook.cjs, what the plugin runs: the warm hook server's thin client, and the full CLI
 * for anything but a hook), both absolute; the CLI itself in a build without that entry.
 */
export function absoluteEngramCommand(io: CliIo): string {
  const main = installableMainPath(io);
  if (main === undefined)
    throw new EngramError(
      'not_found',
      'cannot find the built CLI (dist/cli/main.js); run `npm run build`, or pass --command.',
    );
  const hookEntry = join(dirname(main), 'hook.cjs');
  return `${shellQuote(process.execPath)} ${shellQuote(existsSync(hookEntry) ? hookEntry : main)}`;
}

/**
 * Run `<command> --version` the way Claude Code runs a hook (through the shell) and refuse a
 * command that does not answer: a settings file full of hooks that cannot start helps nobody.
 */
export function verifyEngramCommand(command: string, io: CliIo): void {
  const run = spawnSync('/bin/sh', ['-c', `${command} --version`], {
    cwd: io.cwd,
    env: io.env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (run.status === 0 && /\d+\.\d+/.test(run.stdout)) return;
  const why =
    (run.error?.message ?? run.stderr ?? '').trim().split('\n')[0] || `exit ${run.status}`;
  throw new EngramError(
    'invalid_input',
    `\`${command} --version\` does not run engram (${why}); nothing was written. Pass --command with a command that does, or install engram on PATH.`,
  );
}

const scopes = (command: Command) =>
  command
    .option('--user', 'your Claude Code user settings (~/.claude/settings.json; the default)')
    .option('--project', "the project's shared settings (.claude/settings.json)")
    .option('--local', "the project's uncommitted settings (.claude/settings.local.json)");

export function registerHookInstallCommands(hook: Command, io: CliIo): void {
  withCommonOptions(scopes(hook.command('install')))
    .description(
      "add engram's hooks to Claude Code settings (other hooks are kept) and turn Claude Code's own auto memory off there",
    )
    .option('--command <cmd>', 'how Claude Code should run engram (default: this node and CLI)')
    .option('--keep-auto-memory', "leave Claude Code's built-in auto memory as it is")
    .action(async (opts: InstallOptions & { keepAutoMemory?: boolean }) => {
      const env = opts.cwd ? { ...io, cwd: resolve(io.cwd, opts.cwd) } : io;
      const command = opts.command?.trim() || absoluteEngramCommand(io);
      verifyEngramCommand(command, io);
      const path = claudeSettingsPath(env, scopeOf(opts));
      const result = await installHooks(path, command);
      const autoMemory = opts.keepAutoMemory ? undefined : await turnOffClaudeAutoMemory(env, path);
      if (opts.json) printJson(io, { ...result, command, autoMemoryOff: autoMemory !== undefined });
      else {
        io.stdout(
          `${result.changed ? 'Installed' : 'Already installed:'} engram hooks (${result.events.join(', ')}) in ${result.path}, running ${command}\n`,
        );
        if (autoMemory?.changed)
          io.stdout(
            `Turned off Claude Code's built-in auto memory there (autoMemoryEnabled: false); \`engram hook uninstall\` puts it back.\n`,
          );
      }
    });
  withCommonOptions(scopes(hook.command('uninstall')))
    .description(
      "remove engram's hooks from Claude Code settings (only ours) and restore its auto memory setting",
    )
    .option('--command <cmd>', 'also recognise hooks installed with this --command')
    .action(async (opts: InstallOptions) => {
      const env = opts.cwd ? { ...io, cwd: resolve(io.cwd, opts.cwd) } : io;
      const path = claudeSettingsPath(env, scopeOf(opts));
      const result = await uninstallHooks(path, opts.command);
      const restored = await restoreClaudeAutoMemory(env, path);
      if (opts.json) printJson(io, { ...result, autoMemoryRestored: restored.changed });
      else {
        io.stdout(
          `${result.changed ? 'Removed' : 'No engram hooks in'} ${result.changed ? `engram hooks from ${result.path}` : result.path}\n`,
        );
        if (restored.changed)
          io.stdout(`Restored Claude Code's auto memory setting in ${result.path}.\n`);
      }
    });
}
