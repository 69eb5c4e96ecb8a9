/**
 * A freshly started hook server's warm-up: before its first real request, it runs the prompt hook
 * once over a small synthetic memory directory, so that request finds the code JIT-compiled and
 * every module the served path imports already loaded (a first served prompt cost 2.5–3.7×
 * `node -e ''` against 1.2–1.75× for later ones, docs/hot-path.md).
 *
 * Nothing the user owns is touched and nothing is left: everything lives in a private folder made
 * with mkdtemp under `os.tmpdir()`, which is the run's home folder, its engram home and its project
 * (so its recall log, session state and notices land there), and is removed afterwards. The run's
 * environment is made here, not taken from the process: no model, no settings, no memory of the
 * user's. Its output is discarded. `ENGRAM_HOOK_SERVER_WARM=0` turns it off.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHookCommand } from './hook-run.js';
import type { CliIo } from './io.js';

/** Whether the server warms itself (default yes; `ENGRAM_HOOK_SERVER_WARM=0` says no). */
export function hookWarmUpWanted(env: Record<string, string | undefined>): boolean {
  return env.ENGRAM_HOOK_SERVER_WARM !== '0';
}

/** Plain prose, no paths or code: nothing a claim check would look up. */
const MEMORIES: readonly [string, string][] = [
  ['build-cache', 'the build cache is cleared when the toolchain version changes'],
  ['release-notes', 'release notes are drafted from merged pull request titles'],
  ['retry-policy', 'network calls retry three times with exponential backoff'],
  ['review-rules', 'every change needs one approving review before it is merged'],
  ['log-levels', 'debug logging is off in production and on in staging'],
  ['test-data', 'tests create their own data and remove it afterwards'],
  ['time-zones', 'timestamps are stored in universal time and shown in local time'],
  ['feature-flags', 'new features ship behind a flag that defaults to off'],
];

const PROMPT = 'how many times do network calls retry before the build gives up';

/**
 * Run the prompt hook once over a synthetic memory directory in a private temp folder, then remove
 * the folder. Never throws: a warm-up that fails leaves the server as it was, only colder.
 */
export async function warmUpHookServer(cliEntry: string): Promise<void> {
  let root: string | undefined;
  const cwd = process.cwd();
  try {
    root = mkdtempSync(join(tmpdir(), 'engram-warm-'));
    const home = join(root, 'home');
    const project = join(root, 'project');
    const memory = join(root, 'memory');
    for (const dir of [home, project, memory]) mkdirSync(dir, { mode: 0o700 });
    // Old enough to be trusted by stat, as a settled memory directory is.
    const old = Date.now() / 1000 - 3600;
    for (const [name, description] of MEMORIES) {
      const path = join(memory, `${name}.md`);
      writeFileSync(
        path,
        `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\nWe agreed that ${description}.\n`,
      );
      utimesSync(path, old, old);
    }
    const env: Record<string, string | undefined> = {
      HOME: home,
      ENGRAM_HOME: join(home, '.engram'),
      ENGRAM_MANAGED_DIR: join(root, 'managed'),
      ENGRAM_NO_DAEMON: '1',
    };
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    const io: CliIo = {
      cwd: project,
      env,
      homedir: home,
      stdout: () => undefined,
      stderr: () => undefined,
      stdinIsTty: false,
      readStdin: async () =>
        JSON.stringify({
          hook_event_name: 'UserPromptSubmit',
          session_id: 'engram-warm-up',
          cwd: project,
          prompt: PROMPT,
        }),
      cliEntry,
    };
    // As for a request (hook-server.ts): some code reads process.cwd().
    process.chdir(project);
    await runHookCommand('user-prompt-submit', io, { dir: memory, model: false });
  } catch {
    // best effort: the first request is simply served cold
  } finally {
    try {
      process.chdir(cwd);
    } catch {
      // the server's folder (/) is gone: the next request chdirs to its own anyway
    }
    try {
      if (root !== undefined) rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // left for the system's temp cleaning; it holds nothing of the user's
    }
  }
}
