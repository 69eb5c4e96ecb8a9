import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../src/testing/index.js';

const MAIN = resolve(import.meta.dirname, '../dist/cli/main.js');
const FIXTURE = resolve(import.meta.dirname, 'fixtures/claude-code-session.jsonl');
const SESSION = '7f3c2a10-5b8e-4d21-9c4f-2e6a8b1d0c33';

/** Run the built binary the way Claude Code does: JSON on stdin, JSON expected on stdout. */
function hook(args: string[], stdin: string, env: NodeJS.ProcessEnv, cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const child = execFile(
      process.execPath,
      [MAIN, 'hook', ...args],
      { env, cwd },
      (error, stdout, stderr) => {
        done({
          code: error ? Number(error.code ?? 1) : 0,
          stdout,
          stderr,
        });
      },
    );
    child.stdin?.end(stdin);
  });
}

describe('engram hook as a real child process', () => {
  let root: string;
  let project: string;
  let server: ScriptedModelServer;
  let env: NodeJS.ProcessEnv;
  let transcript: string;

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
    root = await mkdtemp(join(tmpdir(), 'engram-hook-proc-'));
    project = join(root, 'shop');
    await mkdir(project, { recursive: true });
    transcript = join(root, `${SESSION}.jsonl`);
    await writeFile(
      transcript,
      (await readFile(FIXTURE, 'utf8')).replaceAll('/home/USER/projects/shop', project),
    );
    server = await startScriptedModelServer({ fallback: { text: 'Nothing worth saving.' } });
    env = {
      PATH: process.env.PATH,
      HOME: root,
      ENGRAM_HOME: join(root, '.engram'),
      // Each hook in its own process, as the test expects; the hook server has its own tests.
      ENGRAM_NO_DAEMON: '1',
      ENGRAM_MANAGED_DIR: join(root, 'managed'),
      ENGRAM_MODEL: 'anthropic:scripted',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    };
  });
  afterAll(async () => {
    await server?.close();
    // A detached hook child (dream scan, notes) may still be finishing a write: retry, do not fail.
    await rm(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  const input = (event: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      session_id: SESSION,
      transcript_path: transcript,
      cwd: project,
      hook_event_name: event,
      ...extra,
    });

  it('session-start prints one JSON object and nothing else on stdout', async () => {
    const run = await hook(
      ['session-start'],
      input('SessionStart', { source: 'startup' }),
      env,
      project,
    );
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(run.stdout.trim().startsWith('{')).toBe(true);
  });

  it('stop returns at once and extraction finishes in a detached process that advances the cursor', async () => {
    const run = await hook(['stop'], input('Stop', { stop_hook_active: false }), env, project);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({});
    const cursorFile = join(root, '.engram', 'hooks', 'cursors', `${SESSION}.json`);
    // Generous bound: the detached run starts a fresh node process and calls the model once.
    for (let i = 0; i < 200 && !existsSync(cursorFile); i++) await sleep(100);
    expect(JSON.parse(await readFile(cursorFile, 'utf8')).cursor).toBe('a-0006');
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain(
      'never mock the payment gateway',
    );
    const log = await readFile(join(root, '.engram', 'hooks', 'stop.log'), 'utf8');
    expect(log).toMatch(/extraction nothing_saved/);
    // The child deleted its hand-off once read: nothing of the session's input is left behind.
    const left = readdirSync(join(root, '.engram', 'hooks')).filter((f) =>
      f.startsWith('stop-input-'),
    );
    expect(left).toEqual([]);
  });

  it('stop still returns valid JSON and exit 0 when the session folder no longer exists', async () => {
    const session = '0b9e2f44-1c3d-4e5f-8a6b-7c8d9e0f1a2b';
    const gone = join(root, 'deleted-worktree');
    const run = await hook(
      ['stop'],
      JSON.stringify({
        session_id: session,
        transcript_path: transcript,
        cwd: gone,
        hook_event_name: 'Stop',
      }),
      env,
      project,
    );
    expect(run.stderr).not.toMatch(/Unhandled|ENOENT/);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({});
    // The detached run still did its work from a folder that exists.
    const cursorFile = join(root, '.engram', 'hooks', 'cursors', `${session}.json`);
    for (let i = 0; i < 200 && !existsSync(cursorFile); i++) await sleep(100);
    expect(existsSync(cursorFile)).toBe(true);
  });
});
