import { mkdtempSync, symlinkSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveMemoryChain, userMemoryDir } from '../config/memory-chain.js';
import { createEngram } from './create-engram.js';

const fact = {
  type: 'user' as const,
  name: 'backend engineer',
  description: 'User is a backend engineer new to React; explain through backend analogies',
  body: 'Backend engineer, new to React.',
};

describe('the memory chain in the runtime', () => {
  it('resolves project then user, one pure function of plain data', () => {
    expect(
      resolveMemoryChain({ project: { dir: '/p/memory', trusted: false }, engramHome: '/h' }),
    ).toEqual([
      { layer: 'project', dir: '/p/memory', trusted: false },
      { layer: 'user', dir: userMemoryDir('/h'), trusted: true },
    ]);
    expect(
      resolveMemoryChain({ project: { dir: '/p', trusted: true }, engramHome: '/h', user: false }),
    ).toHaveLength(1);
  });

  it('saves with scope user, recalls it from another project, and shows its index in the system prompt', async () => {
    const home = mkdtempSync(join(tmpdir(), 'engram-chain-'));
    const env = { ENGRAM_HOME: join(home, '.engram'), ENGRAM_MANAGED_DIR: join(home, 'managed') };
    const a = join(home, 'a');
    const b = join(home, 'b');
    await mkdir(a);
    await mkdir(b);
    const inA = createEngram({ cwd: a, env, homedir: home });
    const saved = await inA.saveMemory({ ...fact, scope: 'user' });
    expect(saved).toMatchObject({ layer: 'user', dir: userMemoryDir(join(home, '.engram')) });
    const project = await inA.saveMemory({
      type: 'project',
      name: 'react migration',
      description: 'The React migration of repository A ends in March',
      body: 'Ends in March.\n**Why:** budget.\n**How to apply:** plan for it.',
    });
    expect(project.layer).toBe('project');

    const inB = createEngram({ cwd: b, env, homedir: home });
    const result = await inB.recall({ query: 'explain React hooks to me', log: false });
    expect(result.selected.map((m) => [m.file, m.layer])).toEqual([
      ['backend-engineer.md', 'user'],
    ]);
    const prompt = await inB.openSession({ sessionId: 's1' }).systemPrompt();
    expect(prompt).toContain('# User memory index');
    expect(prompt).toContain('[backend engineer](backend-engineer.md)');
    expect(prompt).not.toContain('react-migration.md');
    expect(prompt.indexOf('# Memory index')).toBeLessThan(prompt.indexOf('# User memory index'));
  });

  it('takes a project directory that links to the user layer for that one layer, never both', async () => {
    const home = mkdtempSync(join(tmpdir(), 'engram-chain-link-'));
    const env = { ENGRAM_HOME: join(home, '.engram'), ENGRAM_MANAGED_DIR: join(home, 'managed') };
    const inHome = createEngram({ cwd: home, env, homedir: home });
    await inHome.saveMemory({ ...fact, scope: 'user' });
    const link = join(home, 'user-memory-link');
    symlinkSync(userMemoryDir(join(home, '.engram')), link);

    const viaLink = createEngram({ cwd: home, env, homedir: home, memoryDir: link });
    expect(viaLink.memoryChain.map((l) => l.layer)).toEqual(['project']);
    const result = await viaLink.recall({ query: 'explain React hooks to me', log: false });
    expect(result.selected.map((m) => m.file)).toEqual(['backend-engineer.md']);
  });
});
