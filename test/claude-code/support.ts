/**
 * Driving the real Claude Code CLI (`@anthropic-ai/claude-code`, pinned in devDependencies)
 * offline: a temporary HOME, no network (every model call goes to the loopback scripted server),
 * the plugin installed from this repository with `claude plugin marketplace add` + `install`.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

export const REPO = resolve(import.meta.dirname, '../..');
export const ENGRAM_MAIN = join(REPO, 'dist', 'cli', 'main.js');

/** The native binary the package's postinstall put in place, else its Node launcher. */
export function claudeCommand(): { file: string; prefix: string[] } {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@anthropic-ai/claude-code/package.json'));
  const native = join(dir, 'bin', 'claude.exe');
  // Before the postinstall ran, bin/claude.exe is a small placeholder; the wrapper finds the binary.
  if (existsSync(native) && statSync(native).size > 1_000_000) return { file: native, prefix: [] };
  return { file: process.execPath, prefix: [join(dir, 'cli-wrapper.cjs')] };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command with exactly `env` (nothing inherited), bounded in time. */
export function run(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number; input?: string },
): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

// biome-ignore lint/suspicious/noExplicitAny: stream-json events are read field by field.
export type StreamEvent = Record<string, any>;

export function streamEvents(stdout: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // a partial line: ignore
    }
  }
  return events;
}

/**
 * What hooks showed the user: `systemMessage`s, as Claude Code reports them in stream-json
 * (informational events, and the SessionStart hook responses).
 */
export function systemMessages(events: StreamEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type !== 'system') continue;
    if (e.subtype === 'informational' && typeof e.content === 'string') {
      out.push(e.content.replace(/^\w+ says: /, ''));
    } else if (e.subtype === 'hook_response' && typeof e.stdout === 'string') {
      try {
        const parsed = JSON.parse(e.stdout);
        if (typeof parsed.systemMessage === 'string') out.push(parsed.systemMessage);
      } catch {
        // plain-text hook output
      }
    }
  }
  return [...new Set(out)];
}

/** Poll until `check` holds, for work Claude Code's hooks hand to a detached process. */
export async function eventually<T>(check: () => T | undefined, timeoutMs = 90_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting for the condition');
    await new Promise((r) => setTimeout(r, 250));
  }
}
