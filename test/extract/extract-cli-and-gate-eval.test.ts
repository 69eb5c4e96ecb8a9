import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, REPO } from '../support/cli-process.js';
import {
  claudeTranscript,
  EVAL,
  fresh,
  lastUserText,
  msg,
  node,
  SAVE_STEPS,
  startServer,
} from './support.js';

describe('engram extract (child process)', () => {
  it('a Claude Code transcript: prints "Saved 1 memory" and the cursor; --since narrows', async () => {
    const server = await startServer();
    const home = await fresh('home');
    const project = await fresh('project');
    const memoryDir = join(home, 'mem');
    const file = join(home, 'session.jsonl');
    await writeFile(file, claudeTranscript(project));
    // The fork writes with engram's file tools unless the transcript names others.
    server.push(...SAVE_STEPS);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const r = await node([CLI, 'extract', '--transcript', file, '--dir', memoryDir], env, project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Saved 1 memory\b/);
    expect(r.stdout).toContain('no-unwrap.md');
    expect(await readFile(join(memoryDir, 'MEMORY.md'), 'utf8')).toContain('no-unwrap.md');
    const body = server.requests[0]?.body;
    expect(JSON.stringify(body.messages)).toContain('Never call unwrap()');

    // --since the second message: only the two after it are new.
    const j = await node(
      [
        CLI,
        'extract',
        '--transcript',
        file,
        '--since',
        '22222222-2222-4222-8222-222222222222',
        '--dir',
        memoryDir,
        '--json',
      ],
      env,
      project,
    );
    expect(j.code, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout);
    expect(out.newMessageCount).toBe(2);
    expect(out.status).toBe('nothing_saved');
    expect(lastUserText(server.requests.at(-1)?.body)).toMatch(/last ~2 messages/);
  });

  it('a plain JSON message file works too (OpenAI-compatible endpoint)', async () => {
    const server = await startServer();
    server.push(...SAVE_STEPS);
    const home = await fresh('home');
    const file = join(home, 'chat.json');
    await writeFile(
      file,
      JSON.stringify([
        msg('p1', 'user', 'Never call unwrap() in the daemon.'),
        msg('p2', 'assistant', 'OK.'),
      ]),
    );
    const env = cliEnv(home, {
      OPENAI_BASE_URL: `${server.url}/v1`,
      ENGRAM_MODEL: 'openai:local-qwen',
    });
    const r = await node(
      [CLI, 'extract', '--transcript', file, '--dir', join(home, 'mem'), '--json'],
      env,
      home,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('saved');
    expect(out.saved).toEqual(['no-unwrap.md']);
    expect(out.notice).toMatch(/^Saved 1 memory/);
    expect(server.requests[0]?.api).toBe('openai');
  });

  it('without a model: explains how to configure one and exits non-zero', async () => {
    const home = await fresh('home');
    const file = join(home, 'chat.json');
    await writeFile(
      file,
      JSON.stringify([msg('p1', 'user', 'hi'), msg('p2', 'assistant', 'hello')]),
    );
    const r = await node(
      [CLI, 'extract', '--transcript', file, '--dir', join(home, 'mem')],
      cliEnv(home, {}),
      home,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ANTHROPIC_API_KEY/);
  });
});

describe('the write-gate eval', () => {
  it('npm run eval:extract exists and, without a model, reports "skipped: no model"', async () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.scripts['eval:extract']).toContain('eval/extract');
    const home = await fresh('home');
    const r = await node([EVAL], cliEnv(home, {}), home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/skipped: no model/);
  });

  it('pointed at a model (scripted: saves nothing), it scores every case and fails the ones needing a save', async () => {
    const server = await startServer();
    const home = await fresh('home');
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const r = await node([EVAL, '--json'], env, home);
    expect(r.code).toBe(1);
    expect(server.requests.length).toBeGreaterThanOrEqual(4);
    const text = r.stdout;
    for (const id of [
      'pr-list-snapshot',
      'derivable-tooling',
      'correction-feedback',
      'quiet-confirmation',
    ])
      expect(text).toContain(id);
  });
});
