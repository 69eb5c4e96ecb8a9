import { childProcess } from '../util/child-process.js';

export interface GitRun {
  /** Exit status (0 found / ok, 1 "no match" for grep); null when killed or not started. */
  code: number | null;
  stdout: string;
}

/** Output past this is cut: a file list or status of a huge repository must not fill memory. */
const MAX_GIT_OUTPUT = 16 * 1024 * 1024;

/**
 * Run git in `cwd` and never throw: a missing git, a killed run (budget spent) or a non-zero
 * status all come back as data, so a check that could not run is "unchecked", not a crash.
 */
export function runGit(cwd: string, args: string[], signal?: AbortSignal): Promise<GitRun> {
  return new Promise((done) => {
    if (signal?.aborted) {
      done({ code: null, stdout: '' });
      return;
    }
    childProcess().execFile(
      'git',
      // No pager, no colour, no fsmonitor hooks and no optional locks: a read must not write.
      ['--no-pager', '-c', 'core.fsmonitor=false', '-c', 'color.ui=false', ...args],
      {
        cwd,
        encoding: 'utf8',
        maxBuffer: MAX_GIT_OUTPUT,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        windowsHide: true,
        ...(signal ? { signal } : {}),
      },
      (error, stdout) => {
        if (!error) done({ code: 0, stdout });
        else {
          const code = (error as { code?: unknown }).code;
          done({ code: typeof code === 'number' ? code : null, stdout: stdout ?? '' });
        }
      },
    );
  });
}
