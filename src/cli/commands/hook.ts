import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { engramHome, loadSettings, mergedSettings } from '../../config/index.js';
import {
  claudeSettingsPath,
  DEFAULT_RECALL_BUDGET_MS,
  HOOK_EVENTS,
  type HookCommandName,
  type HookContext,
  type HookInput,
  type HookOutput,
  installHooks,
  parseHookInput,
  preCompactHook,
  runStopConsolidation,
  runStopExtraction,
  type SettingsScope,
  sessionStartHook,
  uninstallHooks,
  userPromptSubmitHook,
} from '../../hooks/index.js';
import { EngramError } from '../../util/errors.js';
import {
  CliExit,
  type CommonOptions,
  configuredModel,
  memoryDirFor,
  printJson,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

interface HookOptions extends CommonOptions {
  model?: boolean;
  wait?: boolean;
  input?: string;
  budgetMs?: string;
}

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

/** The built CLI entry, for running the stop hook's extraction in a detached process. */
function cliMainPath(): string | undefined {
  const path = fileURLToPath(new URL('../main.js', import.meta.url));
  return existsSync(path) ? path : undefined;
}

async function readInput(io: CliIo, opts: HookOptions): Promise<HookInput> {
  if (opts.input === undefined) return parseHookInput(await io.readStdin());
  const path = resolve(io.cwd, opts.input);
  const text = await readFile(path, 'utf8');
  await rm(path, { force: true });
  return parseHookInput(text);
}

function contextFor(io: CliIo, opts: HookOptions, input: HookInput): HookContext {
  // Claude Code runs hooks from the project, and says which in `cwd`; --cwd still wins.
  const base = input.cwd && !opts.cwd ? { ...io, cwd: resolve(io.cwd, input.cwd) } : io;
  const { path } = memoryDirFor(base, opts);
  const environment = {
    cwd: opts.cwd ? resolve(io.cwd, opts.cwd) : base.cwd,
    env: io.env,
    homedir: io.homedir,
  };
  const ctx: HookContext = {
    environment,
    memoryDir: path,
    log: (line) => io.stderr(`engram: ${line}\n`),
    refreshClaims: (files) => refreshClaimsDetached(io, environment.cwd, path, files),
  };
  if (opts.model !== false) {
    const resolved = configuredModel(io, opts);
    if (resolved.ok) ctx.model = resolved.model;
  }
  return ctx;
}

/**
 * The prompt hook answers from the claim cache alone; what it could not answer is checked by a
 * detached `engram verify`, which fills the cache for the next turn and outlives this hook.
 */
function refreshClaimsDetached(io: CliIo, cwd: string, memoryDir: string, files: string[]): void {
  const main = cliMainPath();
  if (main === undefined || !existsSync(cwd)) return;
  try {
    const child = spawn(
      process.execPath,
      [main, 'verify', '--quiet', '--dir', memoryDir, '--cwd', cwd, '--', ...files],
      { cwd, env: io.env as NodeJS.ProcessEnv, detached: true, stdio: 'ignore' },
    );
    child.once('error', () => undefined); // best effort: the next turn simply has no verdict
    child.unref();
  } catch {
    // best effort, as above
  }
}

/**
 * Claude Code waits for a Stop hook; extraction takes a model call or more. Hand the input to a
 * detached engram process and return at once. Its output goes to a log in $ENGRAM_HOME.
 */
async function detachStop(
  io: CliIo,
  opts: HookOptions,
  input: HookInput,
  ctx: HookContext,
): Promise<boolean> {
  const main = cliMainPath();
  if (main === undefined) return false;
  const dir = join(engramHome(ctx.environment), 'hooks');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const inputFile = join(dir, `stop-input-${randomBytes(6).toString('hex')}.json`);
  await writeFile(inputFile, JSON.stringify(input.raw), { mode: 0o600 });
  const log = openSync(join(dir, 'stop.log'), 'a', 0o600);
  const args = [main, 'hook', 'stop', '--wait', '--input', inputFile, '--dir', ctx.memoryDir];
  if (opts.model === false) args.push('--no-model');
  // The session's folder may be gone (a removed worktree); spawning there would fail. The child
  // still reads the session's cwd from the input, and the memory directory is passed explicitly.
  const cwd = existsSync(ctx.environment.cwd) ? ctx.environment.cwd : dir;
  const started = await new Promise<boolean>((done) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: io.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.once('error', (error) => {
      ctx.log?.(`could not start the background extraction: ${error.message}`);
      done(false);
    });
    child.once('spawn', () => {
      child.unref();
      done(true);
    });
  });
  closeSync(log); // the child has its own copy of the descriptor
  if (!started) await rm(inputFile, { force: true });
  return started;
}

async function runHook(name: HookCommandName, io: CliIo, opts: HookOptions): Promise<HookOutput> {
  const input = await readInput(io, opts);
  const ctx = contextFor(io, opts, input);
  // Memory switched off in engram settings: the hooks stay installed but add and save nothing.
  if (mergedSettings(loadSettings(ctx.environment)).autoMemoryEnabled === false) return {};
  switch (name) {
    case 'session-start':
      return sessionStartHook(input, ctx);
    case 'user-prompt-submit': {
      const budgetMs = opts.budgetMs ? Number(opts.budgetMs) : DEFAULT_RECALL_BUDGET_MS;
      if (!Number.isInteger(budgetMs) || budgetMs <= 0) {
        throw new EngramError(
          'invalid_input',
          `--budget-ms needs a positive integer, got "${opts.budgetMs}"`,
        );
      }
      return userPromptSubmitHook(input, ctx, { budgetMs });
    }
    case 'pre-compact':
      return preCompactHook(input, ctx);
    case 'stop': {
      if (ctx.model === undefined) return {};
      if (!opts.wait && (await detachStop(io, opts, input, ctx))) return {};
      const outcome = await runStopExtraction(input, ctx);
      if (outcome.status === 'skipped') ctx.log?.(`extraction skipped: ${outcome.reason}`);
      else
        ctx.log?.(
          `extraction ${outcome.run.outcome}${outcome.run.reason ? ` (${outcome.run.reason})` : ''}`,
        );
      const settings = mergedSettings(loadSettings(ctx.environment));
      const dream = await runStopConsolidation(input, ctx, {
        dreamEnabled: settings.autoDreamEnabled !== false,
      });
      if (dream?.kind === 'stopped') ctx.log?.(`consolidation not due: ${dream.reason}`);
      else if (dream?.kind === 'ran') ctx.log?.(`consolidation ${dream.run.status}`);
      else if (dream?.kind === 'error') ctx.log?.(`consolidation failed: ${dream.error.message}`);
      return outcome.status === 'ran' && outcome.run.notice
        ? { systemMessage: outcome.run.notice }
        : {};
    }
  }
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
      .option('--wait', 'stop: run extraction in this process instead of a detached one')
      .option('--input <file>', 'read the hook JSON from this file (deleted after reading)')
      .option(
        '--budget-ms <ms>',
        'user-prompt-submit: time allowed for recall',
        String(DEFAULT_RECALL_BUDGET_MS),
      )
      .action(async (opts: HookOptions) => {
        let output: HookOutput;
        try {
          output = await runHook(name, io, opts);
        } catch (error) {
          // A hook must never break the session: valid JSON on stdout, the reason on stderr, and
          // exit 1, a non-blocking error. Exit 2 would erase the user's prompt on UserPromptSubmit.
          io.stdout('{}\n');
          io.stderr(`engram: ${error instanceof Error ? error.message : String(error)}\n`);
          throw new CliExit(1);
        }
        io.stdout(`${JSON.stringify(output)}\n`);
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
