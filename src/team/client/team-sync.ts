import { teamChecksum } from '../checksum.js';
import { DEFAULT_TEAM_LIMITS } from '../limits.js';
import { scanForSecrets } from '../secrets/scan.js';
import { packBatches } from './batches.js';
import { sameTeamConfig, type TeamClientConfig } from './config.js';
import {
  failureOf,
  isPermanentFailure,
  type PushFailure,
  type RecoverySignal,
  recoveryFor,
} from './failure.js';
import { TeamHttpClient } from './http-client.js';
import { pullTeam } from './pull.js';
import type { PullReport, PushReport } from './reports.js';
import { loadSyncState, type SyncState, saveSyncState } from './sync-state.js';
import { readLocalTeamFiles } from './team-files.js';

export interface TeamSyncOptions {
  teamDir: string;
  /** Read again when a suppression might be lifted by new credentials. */
  config: () => TeamClientConfig;
  maxEntryBytes?: number;
  maxBodyBytes?: number;
  /** Refresh-and-retry rounds after a 412 (default 3). */
  maxConflictRounds?: number;
  onProgress?: (progress: { batch: number; batches: number; keys: number }) => void;
  /** Every batch the server committed: its keys' checksums and the version it created. */
  onCommit?: (commit: { version: number; checksums: Record<string, string> }) => void;
  onRequest?: (info: { method: string; status: number; ms: number }) => void;
  /** Per HTTP request (default 30 s). */
  timeoutMs?: number;
}

interface Suppression {
  failure: PushFailure;
  recovery: RecoverySignal;
  config: TeamClientConfig;
}

type Ready =
  | { ok: true; http: TeamHttpClient; config: Required<TeamClientConfig> }
  | { ok: false; failure: PushFailure };

/**
 * The team sync client for one team folder, living as long as its process. It holds the one
 * piece of state that must outlive a single push: a permanent failure, which keeps every later
 * push from being tried until a matching recovery signal arrives.
 */
export type { PullReport, PushReport, SkippedKey } from './reports.js';

export class TeamSync {
  /** Push attempts made (suppressed ones are not attempts). */
  attempts = 0;
  private suppression: Suppression | undefined;
  private lastHttp: TeamHttpClient | undefined;

  constructor(readonly options: TeamSyncOptions) {}

  get suppressedBecause(): PushFailure | undefined {
    return this.suppression?.failure;
  }

  /** HTTP requests made so far (by the latest client). */
  get http(): TeamHttpClient | undefined {
    return this.lastHttp;
  }

  /** A team file was deleted: the fix for "too many entries". */
  noteUnlink(): void {
    if (this.suppression?.recovery === 'unlink') this.suppression = undefined;
  }

  private ready(): Ready {
    const config = this.options.config();
    if (!config.url || !config.token) {
      return {
        ok: false,
        failure: {
          kind: 'no_credentials',
          message:
            'no team server credentials: set ENGRAM_TEAM_URL and ENGRAM_TEAM_TOKEN or run `engram team login`',
        },
      };
    }
    if (!config.repo) {
      return {
        ok: false,
        failure: {
          kind: 'no_repo',
          message: 'no team repo: set ENGRAM_TEAM_REPO or run `engram team login`',
        },
      };
    }
    const full = { url: config.url, token: config.token, repo: config.repo };
    if (!this.lastHttp || !sameTeamConfig(this.lastHttp.options, full)) {
      this.lastHttp = new TeamHttpClient({
        ...full,
        ...(this.options.onRequest ? { onRequest: this.options.onRequest } : {}),
        ...(this.options.timeoutMs !== undefined ? { timeoutMs: this.options.timeoutMs } : {}),
      });
    }
    return { ok: true, http: this.lastHttp, config: full };
  }

  /** Server wins per key; local-only files stay; keys that fail validation are refused, not written. */
  async pull(): Promise<PullReport> {
    const ready = this.ready();
    if (!ready.ok) return { written: [], unchanged: 0, refused: [], failure: ready.failure };
    return pullTeam(ready.http, this.options.teamDir, ready.config);
  }

  /** Upload the keys whose checksum differs from the server's last known one. */
  async push(): Promise<PushReport> {
    const report: PushReport = { pushed: [], skipped: [], batches: 0, conflicts: 0 };
    if (this.suppression) {
      const now = this.options.config();
      if (
        this.suppression.recovery === 'credentials' &&
        !sameTeamConfig(now, this.suppression.config)
      ) {
        this.suppression = undefined;
      } else {
        return { ...report, failure: this.suppression.failure, permanent: true, suppressed: true };
      }
    }
    this.attempts++;
    const ready = this.ready();
    if (!ready.ok) return this.fail(report, ready.failure, this.options.config());
    const outcome = await this.pushWith(ready.http, ready.config, report);
    await this.recordPush(ready.config, outcome).catch(() => {});
    return outcome;
  }

  private async pushWith(
    http: TeamHttpClient,
    config: Required<TeamClientConfig>,
    report: PushReport,
  ): Promise<PushReport> {
    const { teamDir } = this.options;
    const maxEntryBytes = this.options.maxEntryBytes ?? DEFAULT_TEAM_LIMITS.maxEntryBytes;
    const maxBodyBytes = this.options.maxBodyBytes ?? DEFAULT_TEAM_LIMITS.maxBodyBytes;
    const local = await readLocalTeamFiles(teamDir, maxEntryBytes);
    report.skipped.push(...local.skipped);
    for (const [key, content] of local.contents) {
      const findings = scanForSecrets(content);
      if (findings.length === 0) continue;
      local.contents.delete(key);
      for (const f of findings)
        report.skipped.push({
          key,
          reason: 'secret',
          rule: f.rule,
          line: f.line,
          match: f.redacted,
        });
    }
    let state = await loadSyncState(teamDir, config.url, config.repo);
    if (!state || state.unknown) {
      const fresh = await this.refresh(http, config);
      if (!fresh.ok) return this.fail(report, fresh.failure, config);
      state = fresh.state;
    }
    const rounds = this.options.maxConflictRounds ?? 3;
    // How long one refresh-and-put took: the window in which another writer can get in first.
    let windowStart = performance.now();
    // A server with smaller limits than ours says so in its 413: the batches are formed again under
    // its limit (or the one entry it names is held back), a few times at most.
    let cap = Math.min(maxBodyBytes, state.limits?.maxBodyBytes ?? maxBodyBytes);
    let replans = 0;
    const entryCap = state.limits?.maxEntryBytes;
    if (entryCap !== undefined) {
      for (const [key, content] of local.contents) {
        if (Buffer.byteLength(content, 'utf8') > entryCap) {
          report.skipped.push({ key, reason: 'too_large' });
          local.contents.delete(key);
        }
      }
    }
    for (let round = 0; ; round++) {
      const changed = new Map<string, string>();
      for (const [key, content] of local.contents) {
        if (state.checksums[key] !== teamChecksum(content)) changed.set(key, content);
      }
      const plan = packBatches(changed, cap);
      for (const key of plan.tooLarge) {
        report.skipped.push({ key, reason: 'too_large' });
        local.contents.delete(key);
      }
      let conflicted = false;
      let replan = false;
      for (const [i, batch] of plan.batches.entries()) {
        this.options.onProgress?.({
          batch: i + 1,
          batches: plan.batches.length,
          keys: batch.keys.length,
        });
        const res = await http.put(batch.body, state.version);
        if (res.ok) {
          state.version = res.version;
          const committed: Record<string, string> = {};
          for (const key of batch.keys) committed[key] = teamChecksum(changed.get(key)!);
          Object.assign(state.checksums, committed);
          this.options.onCommit?.({ version: res.version, checksums: committed });
          report.pushed.push(...batch.keys);
          report.batches++;
          await saveSyncState(teamDir, state);
          continue;
        }
        if (res.status === 412) {
          report.conflicts++;
          conflicted = true;
          break;
        }
        if (res.status === 413 && replans < MAX_REPLANS && 'body' in res) {
          const { error, limit, key } = res.body;
          if (error === 'body_too_large' && typeof limit === 'number' && limit < cap) {
            cap = limit;
            replan = true;
            break;
          }
          if (error === 'entry_too_large' && typeof key === 'string' && local.contents.has(key)) {
            report.skipped.push({ key, reason: 'too_large' });
            local.contents.delete(key);
            replan = true;
            break;
          }
        }
        return this.fail(report, failureOf(res), config);
      }
      if (replan) {
        replans++;
        round--; // not a conflict round
        continue;
      }
      if (!conflicted) break;
      if (round >= rounds) {
        return this.fail(
          report,
          {
            kind: 'conflict',
            status: 412,
            message: `the repo kept changing: ${report.conflicts} conflicts, gave up after ${rounds} retries`,
          },
          config,
        );
      }
      // Writers that collided would collide again in lockstep: each waits a random pause that grows
      // sixfold per round and is scaled by how long a round takes on this server (a busy server
      // means a wider window in which another writer gets in first), so they spread apart.
      const window = Math.max(20, performance.now() - windowStart);
      await sleep(Math.min(MAX_CONFLICT_PAUSE_MS, Math.random() * window * 6 ** (round + 1)));
      windowStart = performance.now();
      // The cheap path: checksums and version only, never the entries' bodies.
      const fresh = await this.refresh(http, config, state);
      if (!fresh.ok) return this.fail(report, fresh.failure, config);
      state = fresh.state;
    }
    report.pushed.sort();
    return report;
  }

  private async refresh(
    http: TeamHttpClient,
    config: Required<TeamClientConfig>,
    previous?: SyncState,
  ): Promise<{ ok: true; state: SyncState } | { ok: false; failure: PushFailure }> {
    const res = await http.getHashes();
    if (!res.ok) return { ok: false, failure: failureOf(res) };
    const checksums: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.body.checksums ?? {}))
      if (typeof v === 'string') checksums[k] = v;
    const { unknown: _unknown, ...known } = previous ?? {};
    const state: SyncState = {
      ...known,
      url: config.url,
      repo: config.repo,
      version: res.version,
      checksums,
      limits: res.limits,
    };
    await saveSyncState(this.options.teamDir, state);
    return { ok: true, state };
  }

  private fail(report: PushReport, failure: PushFailure, config: TeamClientConfig): PushReport {
    report.failure = failure;
    if (isPermanentFailure(failure)) {
      report.permanent = true;
      this.suppression = { failure, recovery: recoveryFor(failure), config };
    }
    report.pushed.sort();
    return report;
  }

  private async recordPush(config: Required<TeamClientConfig>, report: PushReport): Promise<void> {
    // A push that failed before anything was known still leaves its reason for `status`; such a
    // state is marked so the next push starts from the server's hashes, not from an empty map.
    const state = (await loadSyncState(this.options.teamDir, config.url, config.repo)) ?? {
      url: config.url,
      repo: config.repo,
      version: 0,
      checksums: {},
      unknown: true,
    };
    state.lastPush = {
      at: new Date().toISOString(),
      ok: report.failure === undefined,
      pushed: report.pushed.length,
      ...(report.failure ? { failure: report.failure, permanent: Boolean(report.permanent) } : {}),
    };
    await saveSyncState(this.options.teamDir, state);
  }
}

/** How often a push re-forms its batches after a 413 that names a smaller limit. */
const MAX_REPLANS = 5;
/** The longest pause between two conflict rounds. */
const MAX_CONFLICT_PAUSE_MS = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
