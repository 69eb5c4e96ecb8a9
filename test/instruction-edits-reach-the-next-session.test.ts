/**
 * A long-running host (one process, one runtime) serves many sessions. An AGENTS.md edited between
 * two sessions reaches the next one, while a running session's system prompt never changes under
 * it (its prefix is what the provider has cached).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createEngram, openMemory } from 'engram';
import { afterAll, describe, expect, it } from 'vitest';
import { tempRoot } from './support/cli-process.js';

const temp = await tempRoot('engram-instructions-');
afterAll(() => temp.cleanup());

async function project(name: string) {
  const root = await temp.fresh(name);
  const home = join(root, 'home');
  const cwd = join(root, 'app');
  await mkdir(home, { recursive: true });
  await mkdir(join(cwd, '.git'), { recursive: true });
  const env = { ENGRAM_HOME: join(home, '.engram'), ENGRAM_MANAGED_DIR: join(root, 'managed') };
  return { cwd, home, env, agents: join(cwd, 'AGENTS.md') };
}

describe('instruction files are read again for each session', () => {
  it('in one process: session 1 sees AGENTS.md v1; after an edit, session 2 sees v2', async () => {
    const p = await project('runtime');
    await writeFile(p.agents, '# Build\nRun `make check-v1` before every commit.\n');
    const engram = createEngram({ cwd: p.cwd, env: p.env, homedir: p.home });

    const first = engram.openSession({ sessionId: 'session-one' });
    const firstPrompt = await first.systemPrompt();
    expect(firstPrompt).toContain('make check-v1');

    await writeFile(p.agents, '# Build\nRun `make check-v2` before every commit.\n');
    // The running session keeps the bytes it started with.
    expect(await first.systemPrompt()).toBe(firstPrompt);

    const second = engram.openSession({ sessionId: 'session-two' });
    const secondPrompt = await second.systemPrompt();
    expect(secondPrompt).toContain('make check-v2');
    expect(secondPrompt).not.toContain('make check-v1');
    await Promise.all([first.close(), second.close()]);
  });

  it('openMemory, the one-session convenience, sees the edit in the next session too', async () => {
    const p = await project('open-memory');
    await writeFile(p.agents, 'Deploy with `ship --stage v1`.\n');
    const one = await openMemory({ cwd: p.cwd, env: p.env, homedir: p.home });
    expect(await one.systemPrompt()).toContain('ship --stage v1');
    await one.close();
    await writeFile(p.agents, 'Deploy with `ship --stage v2`.\n');
    const two = await openMemory({ cwd: p.cwd, env: p.env, homedir: p.home });
    expect(await two.systemPrompt()).toContain('ship --stage v2');
    await two.close();
  });
});
