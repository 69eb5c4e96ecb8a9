import { existsSync, type FSWatcher, watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PullReport, PushReport, TeamSync } from './team-sync.js';

export interface TeamWatcherOptions {
  sync: TeamSync;
  teamDir: string;
  /** Quiet time after the last change before a push (default 1,500 ms). */
  debounceMs?: number;
  onPush?: (report: PushReport) => void;
  onError?: (error: unknown) => void;
}

export type TeamFileEvent = { kind: 'write' | 'unlink'; key?: string };

export const DEFAULT_WATCH_DEBOUNCE_MS = 1500;

/**
 * Watch mode: pull at start, then changes in the team folder debounce into pushes. A permanent
 * push failure turns every later event into a no-op (the sync object holds the suppression); an
 * unlink is passed on first, because deleting a team file is the recovery for "too many entries".
 */
export class TeamWatcher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private fsWatcher: FSWatcher | undefined;
  private waiters: Array<() => void> = [];

  constructor(readonly options: TeamWatcherOptions) {}

  /** Pull, then follow the folder. */
  async start(): Promise<PullReport> {
    const report = await this.options.sync.pull();
    await mkdir(this.options.teamDir, { recursive: true });
    this.fsWatcher = watch(this.options.teamDir, { recursive: true }, (_type, filename) => {
      if (!filename) return;
      const key = filename.toString().split('\\').join('/');
      // engram's own dot files (sync state, temp files of atomic writes) are not memories; the
      // state file is rewritten by every push and would otherwise trigger the next one.
      if (key.split('/').some((s) => s.startsWith('.')) || !key.endsWith('.md')) return;
      this.notify({ kind: existsSync(join(this.options.teamDir, key)) ? 'write' : 'unlink', key });
    });
    this.fsWatcher.on('error', (error) => this.options.onError?.(error));
    return report;
  }

  notify(event: TeamFileEvent): void {
    if (event.kind === 'unlink') this.options.sync.noteUnlink();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.run();
    }, this.options.debounceMs ?? DEFAULT_WATCH_DEBOUNCE_MS);
  }

  private run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        const report = await this.options.sync.push();
        if (!report.suppressed) this.options.onPush?.(report);
      } catch (error) {
        this.options.onError?.(error);
      }
    })().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.run();
      } else if (!this.timer) {
        for (const w of this.waiters.splice(0)) w();
      }
    });
  }

  /** Resolves once no push is pending or running. */
  idle(): Promise<void> {
    if (!this.timer && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.fsWatcher?.close();
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.run(); // what changed before the stop still goes out
    }
    await this.running;
  }
}
