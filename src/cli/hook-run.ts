/**
 * Running one Claude Code hook event, without commander: the CLI's `engram hook <event>` command
 * and the lean hook entry (`main.ts` → `hook-argv.ts`) both end here, so the two behave the same.
 * Extraction, consolidation and session notes load only for the events that use them.
 */

import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engramHome } from '../config/index.js';
import { redactUrlCredentials } from '../confine/policy.js';
import { claimRefreshDue } from '../drift/refresh-marker.js';
import type { HookContext } from '../hooks/events.js';
import { type HookCommandName, type HookInput, parseHookInput } from '../hooks/input.js';
import { NOTICES, type Notice, sessionNotice } from '../hooks/notices.js';
import type { HookOutput } from '../hooks/output.js';
import type { Engram } from '../runtime/types.js';
import { childProcess } from '../util/child-process.js';
import { EngramError } from '../util/errors.js';
import { readRegularFile } from '../util/regular-file.js';
import { sameDirectory } from '../util/same-directory.js';
import type { CommonOptions } from './common.js';
import { hookDeadlineMs, hookDeadlineText } from './hook-deadlines.js';
import type { CliIo } from './io.js';

export { HOOK_DEADLINES_MS, hookDeadlineMs } from './hook-deadlines.js';

export interface HookOptions extends CommonOptions {
  model?: boolean;
  wait?: boolean;
  input?: string;
  budgetMs?: string;
  /** False: no claim verification marks (user-prompt-submit). */
  verify?: boolean;
}

/** The built CLI entry, for running the stop hook's extraction in a detached process. */
function cliMainPath(io: CliIo): string | undefined {
  if (io.cliEntry !== undefined) return io.cliEntry;
  const path = fileURLToPath(new URL('./main.js', import.meta.url));
  return existsSync(path) ? path : undefined;
}

/** The stop hook's hand-off to its detached child: `<ENGRAM_HOME>/hooks/stop-input-<hex>.json`. */
const HANDOFF_DIR = 'hooks';
const HANDOFF_NAME = /^stop-input-[0-9a-f]{12}\.json$/;

function handoffDir(io: CliIo): string {
  return join(engramHome(io), HANDOFF_DIR);
}

/**
 * `--input F` is how the stop hook hands its input to the detached child (Claude Code itself
 * always writes to stdin). Only that hand-off is deleted once read: F named by hand (a hook
 * payload kept for a bug report, a fixture) stays as it was. Read as a regular file only: a FIFO
 * or a folder fails at once instead of hanging the hook.
 */
async function readInput(io: CliIo, opts: HookOptions): Promise<HookInput> {
  if (opts.input === undefined) return parseHookInput(await io.readStdin());
  const path = resolve(io.cwd, opts.input);
  const { text } = await readRegularFile(path);
  if (HANDOFF_NAME.test(basename(path)) && sameDirectory(dirname(path), handoffDir(io)))
    await rm(path, { force: true });
  return parseHookInput(text);
}

/** The runtime for this hook run: the session's project is the hook input's cwd (`--cwd` wins). */
async function contextFor(
  io: CliIo,
  opts: HookOptions,
  input: HookInput,
): Promise<HookContext & { engram: Engram }> {
  const cwd = opts.cwd
    ? resolve(io.cwd, opts.cwd)
    : input.cwd
      ? resolve(io.cwd, input.cwd)
      : io.cwd;
  // Loaded here, not at start-up: the runtime brings recall, memdir and their packages, which the
  // entry's static graph must not (see test/hook-entry.test.ts).
  const { createEngram } = await import('../runtime/create-engram.js');
  const engram = createEngram({
    cwd,
    env: io.env,
    homedir: io.homedir,
    ...(opts.dir !== undefined ? { memoryDir: opts.dir } : {}),
    ...(opts.memoryDir !== undefined ? { memoryDirFlag: opts.memoryDir } : {}),
    model: opts.model === false ? null : 'configured',
    transcriptDirs: input.transcriptPath ? [dirname(input.transcriptPath)] : [],
  });
  for (const w of engram.memoryDirResolution.warnings) io.stderr(`engram: warning: ${w}\n`);
  return {
    engram,
    // Hook lines land in ~/.engram/hooks/*.log: never a URL's credentials.
    log: (line) => io.stderr(`engram: ${redactUrlCredentials(line)}\n`),
    refreshClaims: (files) => refreshClaimsDetached(io, cwd, engram.memoryDir, files),
  };
}

/**
 * The prompt hook answers from the claim cache alone; what it could not answer is checked by a
 * detached `engram verify`, which fills the cache for the next turn and outlives this hook.
 */
function refreshClaimsDetached(io: CliIo, cwd: string, memoryDir: string, files: string[]): void {
  const main = cliMainPath(io);
  if (main === undefined || !existsSync(cwd)) return;
  try {
    const child = childProcess().spawn(
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
  ctx: HookContext & { engram: Engram },
): Promise<boolean> {
  const main = cliMainPath(io);
  if (main === undefined) return false;
  const { environment, memoryDir } = ctx.engram;
  const home = engramHome(environment);
  const dir = join(home, HANDOFF_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const inputFile = join(dir, `stop-input-${randomBytes(6).toString('hex')}.json`);
  await writeFile(inputFile, JSON.stringify(input.raw), { mode: 0o600 });
  const log = openSync(join(dir, 'stop.log'), 'a', 0o600);
  const args = [main, 'hook', 'stop', '--wait', '--input', inputFile, '--dir', memoryDir];
  if (opts.model === false) args.push('--no-model');
  // The session's folder may be gone (a removed worktree); spawning there would fail. The child
  // still reads the session's cwd from the input, and the memory directory is passed explicitly.
  const cwd = existsSync(environment.cwd) ? environment.cwd : dir;
  const started = await new Promise<boolean>((done) => {
    const child = childProcess().spawn(process.execPath, args, {
      cwd,
      // The child's home is this one, whatever its cwd: a relative ENGRAM_HOME resolves the same,
      // and the child knows the input file for its own hand-off (and deletes it).
      env: { ...io.env, ENGRAM_HOME: home } as NodeJS.ProcessEnv,
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

/** One line on how to give the hooks a model, for the no-model notice. */
const ENABLE_EXTRACTION_HINT =
  'To enable extraction, set ANTHROPIC_API_KEY (or OPENAI_BASE_URL with ENGRAM_MODEL=openai:<model>) where Claude Code starts; `engram models check` tests it.';

async function stop(
  io: CliIo,
  opts: HookOptions,
  input: HookInput,
  ctx: HookContext & { engram: Engram },
): Promise<HookOutput> {
  // At a turn's end the agent may have changed the tree: check every memory's claims again in the
  // background (only when HEAD or the index moved), so the next prompt finds them in the cache.
  if (!opts.wait && (await claimRefreshDue(ctx.engram.environment.cwd, ctx.engram.memoryDir))) {
    ctx.refreshClaims?.([]);
  }
  if (ctx.engram.model === undefined) {
    if (opts.model !== false) ctx.notice?.(NOTICES.noModel(ENABLE_EXTRACTION_HINT));
    return {};
  }
  if (!opts.wait && (await detachStop(io, opts, input, ctx))) return {};
  const { stopHook } = await import('../hooks/stop.js');
  return stopHook(input, ctx);
}

/** What a run tells its caller beyond the output: the lean entry's hook server reads it. */
export interface HookRunReport {
  /** The settings allow a warm hook server (`hookServer: false` turns it off). */
  hookServerAllowed?: boolean;
  /** The hook stopped at its deadline; its work may still be running. */
  deadline?: boolean;
}

export async function runHook(
  name: HookCommandName,
  io: CliIo,
  opts: HookOptions,
  report: HookRunReport = {},
): Promise<HookOutput> {
  const input = await readInput(io, opts);
  const ctx = await contextFor(io, opts, input);
  report.hookServerAllowed = ctx.engram.settings.hookServer !== false;
  // Memory switched off in engram settings: the hooks stay installed but add and save nothing.
  if (!ctx.engram.memoryEnabled) return {};
  const raised: Notice[] = [];
  ctx.notice = (notice) => raised.push(notice);
  const output = await runEvent(name, io, opts, input, ctx);
  // Claude Code drops PreCompact's systemMessage, and a detached stop has no one reading its
  // output: there the notices wait for the next hook. A message already set is never replaced.
  const canShow = name !== 'pre-compact' && opts.input === undefined && !output.systemMessage;
  if (raised.length === 0 && !canShow) return output;
  const environment = ctx.engram.environment;
  const line = await sessionNotice(environment, input.sessionId, raised, { canShow }).catch(
    (error: unknown) => {
      ctx.log?.(`could not record a notice: ${(error as Error).message}`);
      return canShow ? raised[0]?.text : undefined;
    },
  );
  return line !== undefined && canShow ? { ...output, systemMessage: line } : output;
}

async function sessionStart(
  io: CliIo,
  opts: HookOptions,
  input: HookInput,
  ctx: HookContext & { engram: Engram },
): Promise<HookOutput> {
  // The plugin turns Claude Code's own auto memory off where it is enabled (hook install does the
  // same in the settings file it writes).
  if (io.env.CLAUDE_PLUGIN_ROOT) {
    const { ensurePluginAutoMemoryOff } = await import('../hooks/auto-memory.js');
    const change = await ensurePluginAutoMemoryOff(ctx.engram.environment);
    if (change?.changed) ctx.notice?.(NOTICES.autoMemoryOff(change.settingsPath));
  }
  if (ctx.engram.model === undefined && opts.model !== false)
    ctx.notice?.(NOTICES.noModel(ENABLE_EXTRACTION_HINT));
  const { sessionStartHook } = await import('../hooks/events.js');
  return sessionStartHook(input, ctx);
}

async function runEvent(
  name: HookCommandName,
  io: CliIo,
  opts: HookOptions,
  input: HookInput,
  ctx: HookContext & { engram: Engram },
): Promise<HookOutput> {
  switch (name) {
    case 'session-start':
      return sessionStart(io, opts, input, ctx);
    case 'user-prompt-submit': {
      const { DEFAULT_RECALL_BUDGET_MS, userPromptSubmitHook } = await import('../hooks/events.js');
      const budgetMs = opts.budgetMs ? Number(opts.budgetMs) : DEFAULT_RECALL_BUDGET_MS;
      if (!Number.isInteger(budgetMs) || budgetMs <= 0) {
        throw new EngramError(
          'invalid_input',
          `--budget-ms needs a positive integer, got "${opts.budgetMs}"`,
        );
      }
      return userPromptSubmitHook(input, ctx, {
        budgetMs,
        ...(opts.verify === false ? { verify: false } : {}),
      });
    }
    case 'pre-compact': {
      const { preCompactHook } = await import('../hooks/events.js');
      return preCompactHook(input, ctx);
    }
    case 'stop':
      return stop(io, opts, input, ctx);
  }
}

/**
 * Run one hook and print its JSON; returns the exit status. A hook must never break the session:
 * on failure, valid JSON on stdout, the reason on stderr, and exit 1 (a non-blocking error; exit 2
 * would erase the user's prompt on UserPromptSubmit). Past its deadline it answers the same way.
 */
export async function runHookCommand(
  name: HookCommandName,
  io: CliIo,
  opts: HookOptions,
  report: HookRunReport = {},
): Promise<number> {
  const deadlineMs = hookDeadlineMs(name, opts, io.env);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), deadlineMs);
  });
  let output: HookOutput;
  try {
    const result = await Promise.race([runHook(name, io, opts, report), deadline]);
    if (result === 'deadline') {
      report.deadline = true;
      io.stdout('{}\n');
      io.stderr(hookDeadlineText(name, deadlineMs));
      return 1;
    }
    output = result;
  } catch (error) {
    io.stdout('{}\n');
    io.stderr(
      `engram: ${redactUrlCredentials(error instanceof Error ? error.message : String(error))}\n`,
    );
    return 1;
  } finally {
    clearTimeout(timer);
  }
  io.stdout(`${JSON.stringify(output)}\n`);
  return 0;
}
