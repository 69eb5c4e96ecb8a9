import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { redactUrlCredentials } from '../../confine/policy.js';
import { removeTeamFile } from '../../team/client/team-files.js';
import {
  checkTeamKey,
  DEFAULT_WATCH_DEBOUNCE_MS,
  loadSyncState,
  type PushReport,
  resolveTeamConfig,
  saveSyncState,
  saveTeamLogin,
  TeamHttpClient,
  TeamSync,
  TeamWatcher,
  teamDirOf,
} from '../../team/index.js';
import { EngramError } from '../../util/errors.js';
import { markHostProcess } from '../../util/process-kind.js';
import {
  CliExit,
  type CommonOptions,
  memoryDirFor,
  printJson,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';
import { count, registerTeamServerCommands, untilSignal } from './team-serve.js';
import { teamStatus } from './team-status.js';

export function teamSyncFor(
  io: CliIo,
  opts: CommonOptions,
  extra: { onProgress?: (text: string) => void } = {},
) {
  const memoryDir = memoryDirFor(io, opts).path;
  const teamDir = teamDirOf(memoryDir);
  const sync = new TeamSync({
    teamDir,
    config: () => resolveTeamConfig(io),
    ...(extra.onProgress
      ? {
          onProgress: (p) => {
            if (p.batches > 1)
              extra.onProgress!(`pushing batch ${p.batch}/${p.batches} (${p.keys} keys)\n`);
          },
        }
      : {}),
  });
  return { memoryDir, teamDir, sync };
}

function printPushReport(io: CliIo, report: PushReport): void {
  for (const s of report.skipped) {
    if (s.reason === 'secret') {
      io.stderr(
        `engram: held back team/${s.key}:${s.line}: ${s.rule} (${s.match}); remove the secret to share this file\n`,
      );
    } else {
      io.stderr(`engram: skipped team/${s.key}: ${s.reason}\n`);
    }
  }
  io.stdout(
    `pushed ${report.pushed.length} key(s) in ${report.batches} batch(es); ${report.skipped.length} skipped; ${report.conflicts} conflict(s)\n`,
  );
  if (report.failure) {
    io.stderr(
      `engram: push failed: ${report.failure.message}${report.permanent ? ' (pushes stay off until this is fixed)' : ''}\n`,
    );
  }
}

function pushJson(report: PushReport) {
  return {
    pushed: report.pushed,
    skipped: report.skipped,
    batches: report.batches,
    conflicts: report.conflicts,
    ...(report.failure ? { failure: report.failure, permanent: Boolean(report.permanent) } : {}),
  };
}

/** Asks on the terminal; without one there is nobody to ask, so the answer is no (use --yes). */
async function confirm(io: CliIo, question: string): Promise<boolean> {
  if (!io.stdinIsTty) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export function registerTeamCommands(program: Command, io: CliIo): void {
  const team = program
    .command('team')
    .description('team memory: a shared layer synced with a team server');

  registerTeamServerCommands(team, io);

  team
    .command('login')
    .description('save the team server, token and repo in user settings')
    .requiredOption('--url <url>', 'team server URL')
    .requiredOption('--token <token>', 'bearer token from `engram team token create`')
    .requiredOption('--repo <repo>', 'repo name')
    .option('--json', 'print machine-readable JSON')
    .action(async (opts: { url: string; token: string; repo: string; json?: boolean }) => {
      const path = await saveTeamLogin(io, { url: opts.url, token: opts.token, repo: opts.repo });
      if (opts.json)
        printJson(io, {
          url: redactUrlCredentials(opts.url.replace(/\/+$/, '')),
          repo: opts.repo,
          settings: path,
        });
      else
        io.stdout(
          `team server ${redactUrlCredentials(opts.url)} for repo ${opts.repo} saved in ${path}\n`,
        );
    });

  withCommonOptions(
    team.command('pull').description('pull team memories (the server wins per key)'),
  ).action(async (opts: CommonOptions) => {
    const { sync, teamDir } = teamSyncFor(io, opts);
    const report = await sync.pull();
    for (const r of report.refused)
      io.stderr(`engram: refused server key ${JSON.stringify(r.key)}: ${r.reason}\n`);
    if (opts.json) printJson(io, { teamDir, ...report });
    else if (!report.failure)
      io.stdout(
        `pulled ${report.written.length} file(s), ${report.unchanged} unchanged, ${report.refused.length} refused\n`,
      );
    if (report.failure) {
      if (!opts.json) io.stderr(`engram: pull failed: ${report.failure.message}\n`);
      throw new CliExit(1);
    }
  });

  withCommonOptions(
    team.command('push').description('push changed team memories (secrets are held back)'),
  ).action(async (opts: CommonOptions) => {
    const { sync } = teamSyncFor(io, opts, { onProgress: (t) => io.stderr(t) });
    const report = await sync.push();
    if (opts.json) printJson(io, pushJson(report));
    else printPushReport(io, report);
    if (report.failure) throw new CliExit(1);
  });

  withCommonOptions(
    team.command('status').description('team sync configuration, pending keys and the last push'),
  ).action(async (opts: CommonOptions) => {
    const { teamDir } = teamSyncFor(io, opts);
    const status = await teamStatus(teamDir, resolveTeamConfig(io));
    if (opts.json) printJson(io, status);
    else io.stdout(status.text);
  });

  withCommonOptions(
    team
      .command('watch')
      .description('pull, then push team-folder changes as they happen, until interrupted')
      .option('--debounce <ms>', 'quiet time before a push', String(DEFAULT_WATCH_DEBOUNCE_MS)),
  ).action(async (opts: CommonOptions & { debounce: string }) => {
    markHostProcess(); // runs until interrupted, its watch and pushes on the loop
    const { sync, teamDir } = teamSyncFor(io, opts, { onProgress: (t) => io.stderr(t) });
    const emit = (kind: string, value: object) =>
      opts.json ? io.stdout(`${JSON.stringify({ event: kind, ...value })}\n`) : undefined;
    const watcher = new TeamWatcher({
      sync,
      teamDir,
      debounceMs: count(opts.debounce, '--debounce'),
      onPush: (report) =>
        opts.json ? emit('push', pushJson(report)) : printPushReport(io, report),
      onError: (error) => io.stderr(`engram: watch: ${String(error)}\n`),
    });
    const pulled = await watcher.start();
    if (opts.json) emit('pull', pulled);
    else io.stdout(`watching ${teamDir} (pulled ${pulled.written.length} file(s))\n`);
    if (pulled.failure) io.stderr(`engram: pull failed: ${pulled.failure.message}\n`);
    await untilSignal();
    await watcher.stop();
  });

  withCommonOptions(
    team
      .command('rm <key>')
      .description('delete one team memory on the server, for everyone (asks first)')
      .option('--yes', 'do not ask'),
  ).action(async (key: string, opts: CommonOptions & { yes?: boolean }) => {
    const k = key.replace(/^team\//, '');
    const check = checkTeamKey(k);
    if (!check.ok)
      throw new EngramError('invalid_input', `"${key}" is not a team key: ${check.reason}`);
    const config = resolveTeamConfig(io);
    if (!config.url || !config.token || !config.repo) {
      throw new EngramError(
        'settings_error',
        'no team server configured: run `engram team login` or set ENGRAM_TEAM_URL, ENGRAM_TEAM_TOKEN, ENGRAM_TEAM_REPO',
      );
    }
    if (
      !opts.yes &&
      !(await confirm(io, `Delete team memory ${k} from ${config.repo} for everyone? [y/N] `))
    ) {
      throw new EngramError(
        'refused',
        io.stdinIsTty ? 'not deleted' : 'not deleted: no terminal to ask on; pass --yes to confirm',
      );
    }
    const { teamDir } = teamSyncFor(io, opts);
    // The local copy must be removable inside the team folder before anything is deleted anywhere.
    await removeTeamFile(teamDir, k, { check: true });
    const http = new TeamHttpClient({ url: config.url, token: config.token, repo: config.repo });
    const res = await http.delete(k);
    if (!res.ok) {
      if (res.status === 404) throw new EngramError('not_found', `${k} is not on the team server`);
      throw new EngramError(
        'io_error',
        `delete failed: ${'error' in res ? res.error : `HTTP ${res.status} ${String(res.body.error ?? '')}`}`,
      );
    }
    // The local copy goes too, or the next push would upload it again.
    await removeTeamFile(teamDir, k);
    const state = await loadSyncState(teamDir, config.url, config.repo);
    if (state) {
      // The version stays: other keys may have moved too, and the next push learns that by a 412.
      delete state.checksums[k];
      await saveSyncState(teamDir, state);
    }
    if (opts.json) printJson(io, { deleted: k, version: res.version });
    else io.stdout(`deleted ${k} from ${config.repo}\n`);
  });
}
