import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../src/cli/test-io.js';
import { HOOK_CONTEXT_MAX_CHARS } from '../src/hooks/index.js';
import { parseInjections } from '../src/inject/index.js';
import { parseClaudeCodeTranscript } from '../src/llm/claude-code-transcript.js';
import { parseIndexEntries, saveMemory } from '../src/memdir/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../src/testing/index.js';

const FIXTURE = resolve(import.meta.dirname, 'fixtures/claude-code-session.jsonl');
const FIXTURE_CWD = '/home/USER/projects/shop';
const SESSION = '7f3c2a10-5b8e-4d21-9c4f-2e6a8b1d0c33';

let root: string;
let project: string;
let memoryDir: string;
let transcriptPath: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-hooks-'));
  project = join(root, 'shop');
  memoryDir = join(root, 'memory');
  await mkdir(project, { recursive: true });
  transcriptPath = join(root, `${SESSION}.jsonl`);
  const text = await readFile(FIXTURE, 'utf8');
  await writeFile(transcriptPath, text.replaceAll(FIXTURE_CWD, project));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function io(stdin: string, env: Record<string, string> = {}) {
  const base = testIo({ stdin, cwd: project, homedir: root });
  base.env = { ...base.env, ...env };
  return base;
}

function hookJson(event: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: SESSION,
    transcript_path: transcriptPath,
    cwd: project,
    permission_mode: 'default',
    hook_event_name: event,
    ...extra,
  });
}

async function hook(
  name: string,
  stdin: string,
  env: Record<string, string> = {},
  flags: string[] = [],
) {
  const run = await runCaptured(['hook', name, '--dir', memoryDir, ...flags], io(stdin, env));
  return { ...run, json: JSON.parse(run.stdout) as HookJson };
}

interface HookJson {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
  systemMessage?: string;
}

const CORRECTION = {
  name: 'Never mock the payment gateway',
  description: 'tests use the sandbox payment gateway, never a mock of it',
  type: 'feedback' as const,
  body: 'Use the sandbox payment gateway in tests, never a mock.\n**Why:** the mock hid a currency rounding bug.\n**How to apply:** every test touching checkout or payments.',
};

describe('the transcript fixture', () => {
  it('reads like a real multi-line Claude Code session', async () => {
    const result = parseClaudeCodeTranscript(await readFile(FIXTURE, 'utf8'));
    expect(result.sessionId).toBe(SESSION);
    expect(result.cwd).toBe(FIXTURE_CWD);
    expect(result.messages.map((m) => `${m.role}:${m.id}`)).toEqual([
      'user:u-0001',
      'assistant:a-0004',
      'user:u-0003',
      'assistant:a-0005',
      'user:u-0004',
      'assistant:a-0006',
    ]);
    expect(result.messages[1]!.content.map((b) => b.type)).toEqual([
      'thinking',
      'tool_use',
      'tool_use',
    ]);
    expect(result.warnings).toEqual([]);
  });
});

describe('engram hook <event> with real-shaped input', () => {
  it('session-start prints the guidance and the index as additional context', async () => {
    await saveMemory(memoryDir, CORRECTION);
    const { code, json } = await hook(
      'session-start',
      hookJson('SessionStart', { source: 'startup', model: 'claude-sonnet-5' }),
    );
    expect(code).toBe(0);
    expect(json.hookSpecificOutput.hookEventName).toBe('SessionStart');
    const context: string = json.hookSpecificOutput.additionalContext;
    expect(context).toMatch(/^# Persistent memory/);
    expect(context).toContain('# Memory index (MEMORY.md)');
    expect(context).toContain(
      '- [Never mock the payment gateway](never-mock-the-payment-gateway.md)',
    );
    expect(context.length).toBeLessThanOrEqual(HOOK_CONTEXT_MAX_CHARS);
  });

  it('session-start with an unreachable team server still answers, and says why once', async () => {
    // A port nothing listens on: the pull fails at once and the session goes on.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    const { code, json, stderr } = await hook(
      'session-start',
      hookJson('SessionStart', { source: 'startup' }),
      {
        ENGRAM_TEAM_URL: `http://127.0.0.1:${port}`,
        ENGRAM_TEAM_TOKEN: 'egt_unused',
        ENGRAM_TEAM_REPO: 'acme',
      },
    );
    expect(code).toBe(0);
    expect(json.hookSpecificOutput.additionalContext).toMatch(/^# Persistent memory/);
    expect(stderr).toMatch(/^engram: team pull failed: cannot reach the team server/m);
    expect(stderr).not.toContain('engram: engram:');
  });

  it('session-start after a compaction also carries the session notes', async () => {
    const notesDir = join(root, '.engram', 'session-memory', SESSION);
    await mkdir(notesDir, { recursive: true });
    await writeFile(
      join(notesDir, 'notes.md'),
      '# Current state\nRefund tests half written; sandbox gateway creds in .env.test.\n',
    );
    const { json } = await hook('session-start', hookJson('SessionStart', { source: 'compact' }));
    const context: string = json.hookSpecificOutput.additionalContext;
    expect(context).toContain('# Session notes kept before compaction');
    expect(context).toContain('Refund tests half written');
    const startup = await hook('session-start', hookJson('SessionStart', { source: 'startup' }));
    expect(startup.json.hookSpecificOutput.additionalContext).not.toContain(
      'Refund tests half written',
    );
  });

  it('session-start stays under 10,000 characters with a huge index and says where the rest is', async () => {
    await mkdir(memoryDir, { recursive: true });
    const lines = Array.from(
      { length: 190 },
      (_, i) => `- [Memory ${i}](m-${i}.md) — ${'x'.repeat(100)}`,
    );
    await writeFile(join(memoryDir, 'MEMORY.md'), `${lines.join('\n')}\n`);
    const { json } = await hook('session-start', hookJson('SessionStart', { source: 'resume' }));
    const context: string = json.hookSpecificOutput.additionalContext;
    expect(context.length).toBeLessThanOrEqual(HOOK_CONTEXT_MAX_CHARS);
    expect(context).toMatch(
      /more characters not shown to stay within the hook limit; read .*MEMORY\.md for the rest\]$/,
    );
  });

  it('user-prompt-submit injects the relevant memory once; the transcript says it was surfaced', async () => {
    await saveMemory(memoryDir, CORRECTION);
    const prompt = 'write a new test for the payment gateway refund flow';
    const first = await hook('user-prompt-submit', hookJson('UserPromptSubmit', { prompt }));
    expect(first.code).toBe(0);
    const context: string = first.json.hookSpecificOutput.additionalContext;
    expect(first.json.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(context).toContain('Use the sandbox payment gateway in tests, never a mock.');
    expect(context.length).toBeLessThanOrEqual(HOOK_CONTEXT_MAX_CHARS);
    expect(parseInjections(context).flatMap((i) => i.memories.map((m) => m.file))).toEqual([
      'never-mock-the-payment-gateway.md',
    ]);

    // Claude Code records the injected text as a hook_additional_context attachment.
    const attachment = {
      parentUuid: 'a-0006',
      isSidechain: false,
      type: 'attachment',
      attachment: {
        type: 'hook_additional_context',
        hookName: 'UserPromptSubmit',
        content: [context],
      },
      uuid: 'at-0002',
      sessionId: SESSION,
      cwd: project,
      timestamp: '2026-02-12T16:05:00.000Z',
    };
    await writeFile(
      transcriptPath,
      `${await readFile(transcriptPath, 'utf8')}${JSON.stringify(attachment)}\n`,
    );
    const second = await hook('user-prompt-submit', hookJson('UserPromptSubmit', { prompt }));
    expect(second.json).toEqual({});
  });

  it('user-prompt-submit prints {} for a single word or nothing relevant, and copes with a missing transcript', async () => {
    await saveMemory(memoryDir, CORRECTION);
    expect(
      (await hook('user-prompt-submit', hookJson('UserPromptSubmit', { prompt: 'continue' }))).json,
    ).toEqual({});
    const missing = JSON.stringify({
      session_id: 's1',
      transcript_path: join(root, 'none.jsonl'),
      cwd: project,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'rename the sidebar colour variables',
    });
    expect((await hook('user-prompt-submit', missing)).json).toEqual({});
  });

  it('stop and pre-compact without a model save nothing; the user is told once how to enable extraction', async () => {
    const input = hookJson('Stop', { stop_hook_active: false, last_assistant_message: 'Ok.' });
    const stop = await hook('stop', input);
    expect(Object.keys(stop.json)).toEqual(['systemMessage']);
    expect(stop.json.systemMessage).toMatch(/^engram: no model is configured.*ANTHROPIC_API_KEY/);
    expect(stop.json.systemMessage).not.toContain('\n');
    // Once per session: the next stop says nothing more.
    expect((await hook('stop', input)).json).toEqual({});
    const compact = await hook(
      'pre-compact',
      hookJson('PreCompact', { trigger: 'auto', custom_instructions: '' }),
    );
    // Claude Code drops PreCompact's systemMessage: the notice waits for the next hook.
    expect(compact.json).toEqual({});
    const next = await hook('stop', input);
    expect(next.json.systemMessage).toMatch(/^engram: session notes were not updated/);
    expect(existsSync(join(root, '.engram', 'hooks', 'cursors', `${SESSION}.json`))).toBe(false);
  });

  it('does nothing when memory is turned off in engram settings', async () => {
    await saveMemory(memoryDir, CORRECTION);
    await mkdir(join(root, '.engram'), { recursive: true });
    await writeFile(
      join(root, '.engram', 'settings.json'),
      JSON.stringify({ autoMemoryEnabled: false }),
    );
    const prompt = 'write a new test for the payment gateway refund flow';
    expect(
      (await hook('user-prompt-submit', hookJson('UserPromptSubmit', { prompt }))).json,
    ).toEqual({});
    expect(
      (await hook('session-start', hookJson('SessionStart', { source: 'startup' }))).json,
    ).toEqual({});
  });

  it('bad stdin or a bad setting still prints valid JSON and never blocks the prompt', async () => {
    const run = await runCaptured(['hook', 'session-start', '--dir', memoryDir], io('{not json'));
    expect(JSON.parse(run.stdout)).toEqual({});
    // 1, never 2: exit 2 would block (erase) the user's prompt on UserPromptSubmit.
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not valid JSON/);
    const badDir = io(hookJson('UserPromptSubmit', { prompt: 'fix the payment gateway tests' }));
    badDir.env = { ...badDir.env, ENGRAM_MEMORY_DIR: 'relative/memory' };
    const refused = await runCaptured(['hook', 'user-prompt-submit'], badDir);
    expect(JSON.parse(refused.stdout)).toEqual({});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/Refusing memory directory "relative\/memory"/);
  });

  it('--input reads a file and deletes only the stop hand-off in $ENGRAM_HOME/hooks; a FIFO fails at once', async () => {
    const input = hookJson('SessionStart', { source: 'startup' });
    const named = join(project, 'payload with spaces.json');
    const lookalikeDir = join(root, 'elsewhere', 'hooks');
    await mkdir(lookalikeDir, { recursive: true });
    const lookalike = join(lookalikeDir, 'stop-input-0123456789ab.json');
    const handoffDir = join(root, '.engram', 'hooks');
    await mkdir(handoffDir, { recursive: true });
    const handoff = join(handoffDir, 'stop-input-0123456789ab.json');
    for (const file of [named, lookalike, handoff]) {
      await writeFile(file, input);
      const run = await runCaptured(
        ['hook', 'session-start', '--dir', memoryDir, '--input', file],
        io(''),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).hookSpecificOutput.hookEventName).toBe('SessionStart');
    }
    // A file named by hand, even one shaped like the hand-off, is never the hook's to delete.
    expect(await readFile(named, 'utf8')).toBe(input);
    expect(await readFile(lookalike, 'utf8')).toBe(input);
    expect(existsSync(handoff)).toBe(false);
    const fifo = join(root, 'hook.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = await runCaptured(
      ['hook', 'session-start', '--dir', memoryDir, '--input', fifo],
      io(''),
    );
    expect(JSON.parse(run.stdout)).toEqual({});
    expect(run.code).toBe(1);
    expect(existsSync(fifo)).toBe(true);
  });

  it('an option the hook does not know prints {} and exits 1, never the 2 that erases the prompt', async () => {
    // A typo in a settings file, or hooks written by a newer engram: every prompt must go through.
    const prompt = hookJson('UserPromptSubmit', { prompt: 'fix the payment gateway tests' });
    for (const argv of [
      ['hook', 'user-prompt-submit', '--budget', '3000'],
      ['hook', 'user-prompt-submit', '--budget-ms'],
      ['hook', 'stop', 'extra-argument'],
    ]) {
      const run = await runCaptured(argv, io(prompt));
      expect(JSON.parse(run.stdout)).toEqual({});
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /error: (unknown option|option .* argument missing|too many arguments)/,
      );
    }
  });
});

describe('engram hook with a model (scripted server)', () => {
  let server: ScriptedModelServer;
  let env: Record<string, string>;
  beforeEach(async () => {
    server = await startScriptedModelServer();
    env = {
      ENGRAM_MODEL: 'anthropic:scripted-model',
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    };
  });
  afterEach(async () => {
    await server.close();
  });

  it('stop extracts since its cursor, keeps the cursor per session, and does not repeat', async () => {
    const memory = `---\nname: ${CORRECTION.name}\ndescription: ${CORRECTION.description}\ntype: feedback\n---\n${CORRECTION.body}\n`;
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: 'never-mock-the-payment-gateway.md', content: memory } },
        ],
      },
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content:
                '- [Never mock the payment gateway](never-mock-the-payment-gateway.md) — sandbox gateway in tests\n',
            },
          },
        ],
      },
      { text: 'Saved the correction about the payment gateway.' },
    );
    const stop = await hook('stop', hookJson('Stop', { stop_hook_active: false }), env, ['--wait']);
    expect(stop.code).toBe(0);
    expect(stop.json.systemMessage).toMatch(/never-mock-the-payment-gateway\.md/);
    // The consolidation gates ran after extraction; one session (the running one) is not enough.
    expect(stop.stderr).toMatch(/consolidation not due: .*session/);
    expect(server.requests).toHaveLength(3);
    // The fork saw the transcript's conversation (thinking blocks stripped) and the correction.
    const first = server.requests[0]!.body;
    expect(JSON.stringify(first.messages)).toContain('we never mock the payment gateway');
    expect(JSON.stringify(first.messages)).not.toContain('"thinking"');
    const cursor = JSON.parse(
      await readFile(join(root, '.engram', 'hooks', 'cursors', `${SESSION}.json`), 'utf8'),
    );
    expect(cursor.cursor).toBe('a-0006');
    expect(
      parseIndexEntries(await readFile(join(memoryDir, 'MEMORY.md'), 'utf8')).map((e) => e.file),
    ).toEqual(['never-mock-the-payment-gateway.md']);

    const again = await hook('stop', hookJson('Stop', { stop_hook_active: false }), env, [
      '--wait',
    ]);
    expect(again.json).toEqual({});
    expect(server.requests).toHaveLength(3);
  });

  it('user-prompt-submit goes on without memories when recall exceeds its time budget', async () => {
    await saveMemory(memoryDir, CORRECTION);
    server.push({ text: '{"selected_memories": []}', delayMs: 10_000 });
    const prompt = 'write a new test for the payment gateway refund flow';
    const run = await hook('user-prompt-submit', hookJson('UserPromptSubmit', { prompt }), env, [
      '--budget-ms',
      '300',
    ]);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({
      systemMessage: expect.stringMatching(/^engram: recall took longer than 300 ms/),
    });
    expect(run.stderr).toMatch(/recall took longer than 300 ms/);
    expect(server.requests).toHaveLength(1); // the selector was asked, and not waited for
  });

  it('pre-compact brings the session notes up to date', async () => {
    server.push(
      (req) => {
        const notesPath =
          /`([^`]*notes\.md)`/.exec(req.rawBody)?.[1] ??
          /([^\s"]*session-memory[^\s"]*notes\.md)/.exec(req.rawBody)?.[1];
        return { toolUse: [{ name: 'read', input: { path: notesPath } }] };
      },
      { text: 'Notes are current.' },
    );
    const run = await hook(
      'pre-compact',
      hookJson('PreCompact', { trigger: 'manual', custom_instructions: '' }),
      env,
    );
    expect(run.json).toEqual({});
    expect(server.requests.length).toBeGreaterThanOrEqual(1);
    expect(run.stderr).toMatch(/session notes updated/);
    expect(existsSync(join(root, '.engram', 'session-memory', SESSION, 'notes.md'))).toBe(true);
  });
});

const BUILT_MAIN = resolve(import.meta.dirname, '../dist/cli/main.js');
const quoted = (word: string) => `"${word}"`;
/** What `hook install` writes by default: this node and the built hook entry the plugin runs. */
const ABSOLUTE = `${quoted(process.execPath)} ${quoted(resolve(import.meta.dirname, '../dist/cli/hook.cjs'))}`;

/** A command of one's own that runs engram (a wrapper script, as people write them). */
async function wrapperCommand(name: string): Promise<string> {
  const dir = join(root, 'tools');
  await mkdir(dir, { recursive: true });
  const script = join(dir, name);
  await writeFile(script, `#!/bin/sh\nexec "${process.execPath}" "${BUILT_MAIN}" "$@"\n`);
  await chmod(script, 0o755);
  return script;
}

describe('engram hook install / uninstall', () => {
  it('merges into existing settings without clobbering other hooks, and removes only ours', async () => {
    const settingsPath = join(project, '.claude', 'settings.json');
    await mkdir(join(project, '.claude'), { recursive: true });
    const theirs = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }],
      },
    };
    await writeFile(settingsPath, JSON.stringify(theirs, null, 2));
    const run = async (args: string[]) => runCaptured(['hook', ...args], io(''));

    const installed = await run(['install', '--project']);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toMatch(/^Installed engram hooks/);
    const after = JSON.parse(await readFile(settingsPath, 'utf8'));
    expect(after.permissions).toEqual(theirs.permissions);
    expect(after.hooks.PreToolUse).toEqual(theirs.hooks.PreToolUse);
    expect(after.hooks.SessionStart).toEqual([
      theirs.hooks.SessionStart[0],
      { hooks: [{ type: 'command', command: `${ABSOLUTE} hook session-start`, timeout: 10 }] },
    ]);
    expect(after.hooks.UserPromptSubmit[0].hooks[0].command).toBe(
      `${ABSOLUTE} hook user-prompt-submit`,
    );
    expect(after.hooks.Stop[0].hooks[0].command).toBe(`${ABSOLUTE} hook stop`);
    expect(after.hooks.PreCompact[0].hooks[0].command).toBe(`${ABSOLUTE} hook pre-compact`);
    // One memory system: Claude Code's own auto memory is off in the same file.
    expect(after.autoMemoryEnabled).toBe(false);

    // Installing twice changes nothing and never duplicates.
    expect((await run(['install', '--project'])).stdout).toMatch(/^Already installed/);
    expect(JSON.parse(await readFile(settingsPath, 'utf8'))).toEqual(after);
    // An install of an older build (the CLI itself, main.js) is replaced, not kept beside ours.
    const older = JSON.parse(
      JSON.stringify(after).replaceAll(
        JSON.stringify(ABSOLUTE).slice(1, -1),
        JSON.stringify(`${quoted(process.execPath)} ${quoted(BUILT_MAIN)}`).slice(1, -1),
      ),
    );
    expect(older).not.toEqual(after);
    await writeFile(settingsPath, JSON.stringify(older, null, 2));
    expect((await run(['install', '--project'])).stdout).toMatch(/^Installed engram hooks/);
    expect(JSON.parse(await readFile(settingsPath, 'utf8'))).toEqual(after);

    const removed = await run(['uninstall', '--project']);
    expect(removed.stdout).toMatch(/^Removed engram hooks/);
    expect(JSON.parse(await readFile(settingsPath, 'utf8'))).toEqual(theirs);
  });

  it('installs into user settings by default (CLAUDE_CONFIG_DIR respected) and refuses to rewrite broken JSON', async () => {
    const configDir = join(root, 'claude-config');
    const base = io('');
    base.env = { ...base.env, CLAUDE_CONFIG_DIR: configDir };
    const mine = await wrapperCommand('my-engram');
    const result = await runCaptured(['hook', 'install', '--json', '--command', mine], base);
    const parsed = JSON.parse(result.stdout);
    expect(parsed.path).toBe(join(configDir, 'settings.json'));
    const settings = JSON.parse(await readFile(parsed.path, 'utf8'));
    expect(settings.hooks.Stop[0].hooks[0].command).toBe(`${mine} hook stop`);

    const local = join(project, '.claude', 'settings.local.json');
    await mkdir(join(project, '.claude'), { recursive: true });
    await writeFile(local, '{ "hooks": ');
    const broken = await runCaptured(['hook', 'install', '--local'], io(''));
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/not valid JSON/);
    expect(await readFile(local, 'utf8')).toBe('{ "hooks": ');
  });

  it('keeps the settings file a link and its mode, and uninstalls a custom --command', async () => {
    // Dotfile managers link ~/.claude/settings.json into a repository: the link must survive.
    const dotfiles = join(root, 'dotfiles', 'claude-settings.json');
    await mkdir(join(root, 'dotfiles'), { recursive: true });
    await writeFile(dotfiles, JSON.stringify({ model: 'opus' }));
    await chmod(dotfiles, 0o644);
    await mkdir(join(root, '.claude'), { recursive: true });
    const linked = join(root, '.claude', 'settings.json');
    await symlink(dotfiles, linked);
    const command = await wrapperCommand('mem');
    const run = async (args: string[]) => runCaptured(['hook', ...args], io(''));

    expect((await run(['install', '--user', '--command', command])).code).toBe(0);
    expect((await lstat(linked)).isSymbolicLink()).toBe(true);
    expect((await stat(dotfiles)).mode & 0o777).toBe(0o644);
    const installed = JSON.parse(await readFile(dotfiles, 'utf8'));
    expect(installed.model).toBe('opus');
    expect(installed.hooks.UserPromptSubmit[0].hooks[0].command).toBe(
      `${command} hook user-prompt-submit`,
    );
    // The same command again is recognised as ours: no duplicates.
    expect((await run(['install', '--user', '--command', command])).stdout).toMatch(
      /^Already installed/,
    );
    const removed = await run(['uninstall', '--user', '--command', command]);
    expect(removed.stdout).toMatch(/^Removed engram hooks/);
    // Exactly what was there: the auto memory key was absent, so it is absent again.
    expect(JSON.parse(await readFile(dotfiles, 'utf8'))).toEqual({ model: 'opus' });
    expect((await lstat(linked)).isSymbolicLink()).toBe(true);
  });

  it('refuses a command that does not run engram, and writes nothing', async () => {
    const settingsPath = join(root, '.claude', 'settings.json');
    const run = await runCaptured(
      ['hook', 'install', '--command', join(root, 'no-such-engram')],
      io(''),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/does not run engram.*nothing was written/);
    expect(existsSync(settingsPath)).toBe(false);
  });

  it('the default command works with engram nowhere on PATH', async () => {
    const base = io('');
    base.env = { ...base.env, PATH: '/nonexistent' };
    expect((await runCaptured(['hook', 'install'], base)).code).toBe(0);
    const settings = JSON.parse(await readFile(join(root, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.SessionStart[0].hooks[0].command as string;
    expect(command).toBe(`${ABSOLUTE} hook session-start`);
    const { execFileSync } = await import('node:child_process');
    const out = execFileSync('/bin/sh', ['-c', `${command} --dir ${memoryDir}`], {
      input: hookJson('SessionStart', { source: 'startup' }),
      env: {
        PATH: '/nonexistent',
        HOME: root,
        ENGRAM_HOME: join(root, '.engram'),
        ENGRAM_NO_DAEMON: '1',
      },
      encoding: 'utf8',
    });
    expect(JSON.parse(out).hookSpecificOutput.hookEventName).toBe('SessionStart');
  });

  it('puts back the auto memory setting that was there before', async () => {
    const settingsPath = join(root, '.claude', 'settings.json');
    await mkdir(join(root, '.claude'), { recursive: true });
    await writeFile(settingsPath, JSON.stringify({ autoMemoryEnabled: true, theme: 'dark' }));
    const run = async (args: string[]) => runCaptured(['hook', ...args], io(''));
    expect((await run(['install'])).stdout).toMatch(
      /Turned off Claude Code's built-in auto memory/,
    );
    expect(JSON.parse(await readFile(settingsPath, 'utf8')).autoMemoryEnabled).toBe(false);
    await run(['install']); // again: the recorded value stays the person's, not our false
    expect((await run(['uninstall'])).stdout).toMatch(/Restored Claude Code's auto memory/);
    expect(JSON.parse(await readFile(settingsPath, 'utf8'))).toEqual({
      autoMemoryEnabled: true,
      theme: 'dark',
    });
  });
});
