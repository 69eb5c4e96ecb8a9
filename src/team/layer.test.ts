import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemory } from '../facade/open-memory.js';
import { sessionStartHook } from '../hooks/events.js';
import { auditMemoryDir, saveMemory, scanMemories } from '../memdir/index.js';
import { recall } from '../recall/index.js';
import { isTeamMemoryFile, teamDirOf } from './client/team-files.js';
import { startLocalTeamServer } from './local-team-server.js';
import { TEAM_INDEX_HEADING } from './prompts.js';

let root: string;
let memoryDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-team-layer-'));
  memoryDir = join(root, 'memory');
  await mkdir(join(root, 'project'), { recursive: true });
  await saveMemory(memoryDir, {
    type: 'user',
    name: 'tabs',
    description: 'prefers tabs over spaces',
    body: 'Tabs.',
  });
  await saveMemory(teamDirOf(memoryDir), {
    type: 'project',
    name: 'release train',
    description: 'no deploys on fridays; the train leaves thursday',
    body: 'No deploys on Fridays.\n**Why:** on-call is thin.\n**How to apply:** ship by Thursday.',
  });
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('the team layer in the memory directory', () => {
  it('is scanned with the other memories and marked by its team/ prefix', async () => {
    const files = (await scanMemories(memoryDir)).memories.map((m) => m.file).sort();
    expect(files).toEqual(['tabs.md', 'team/release-train.md']);
    expect(files.filter(isTeamMemoryFile)).toEqual(['team/release-train.md']);
  });

  it('is recalled with the personal memories and reported as the team layer', async () => {
    const result = await recall({
      dir: memoryDir,
      query: 'can we deploy on fridays?',
      now: Date.now(),
    });
    const hit = result.selected.find((m) => m.file === 'team/release-train.md');
    expect(hit?.layer).toBe('team');
    expect(result.shape.layers).toContain('team');
  });

  it('is indexed by its own MEMORY.md, so the audit does not call its files orphans', async () => {
    expect((await auditMemoryDir(memoryDir)).problems).toEqual([]);
    await saveMemory(memoryDir, {
      type: 'project',
      name: 'stray',
      description: 'a team file without an index line',
      body: 'x\n**Why:** y\n**How to apply:** z',
      file: 'elsewhere.md',
    });
    const { rename } = await import('node:fs/promises');
    await rename(join(memoryDir, 'elsewhere.md'), join(teamDirOf(memoryDir), 'stray.md'));
    const problems = (await auditMemoryDir(memoryDir)).problems;
    expect(problems.map((p) => [p.kind, p.file])).toContainEqual(['orphan', 'team/stray.md']);
  });

  it('puts the team index into the system prompt, after the personal one, marked as team', async () => {
    const memory = await openMemory({
      cwd: join(root, 'project'),
      memoryDir,
      env: {},
      homedir: root,
      instructions: false,
    });
    const prompt = await memory.systemPrompt();
    const team = prompt.indexOf(TEAM_INDEX_HEADING);
    expect(team).toBeGreaterThan(prompt.indexOf('tabs.md'));
    expect(prompt.slice(team)).toContain('(release-train.md)');
  });

  it('never puts the index of a linked team folder into the system prompt', async () => {
    const outside = join(root, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'MEMORY.md'), '- [x](x.md) — outside index sentinel\n');
    await rm(teamDirOf(memoryDir), { recursive: true });
    await symlink(outside, teamDirOf(memoryDir));
    const memory = await openMemory({
      cwd: join(root, 'project'),
      memoryDir,
      env: {},
      homedir: root,
      instructions: false,
    });
    const prompt = await memory.systemPrompt();
    expect(prompt).toContain('tabs.md');
    expect(prompt).not.toContain('outside index sentinel');
    expect(prompt).not.toContain(TEAM_INDEX_HEADING);
  });
});

describe('the team layer at session start', () => {
  it('pulls from the configured team server before the indexes are read', async () => {
    const server = await startLocalTeamServer();
    try {
      const token = await server.token('acme');
      await server.store.putEntries(
        'acme',
        [
          { key: 'MEMORY.md', content: '- [On-call](on-call.md) — who is on call this week\n' },
          {
            key: 'on-call.md',
            content:
              '---\nname: on-call\ndescription: who is on call\ntype: reference\n---\nDana.\n',
          },
        ],
        { maxEntries: 10 },
      );
      const env = {
        ENGRAM_TEAM_URL: server.url,
        ENGRAM_TEAM_TOKEN: token,
        ENGRAM_TEAM_REPO: 'acme',
      };
      const out = await sessionStartHook(
        { source: 'startup', raw: {} },
        { environment: { cwd: join(root, 'project'), env, homedir: root }, memoryDir },
      );
      const text = out.hookSpecificOutput?.additionalContext ?? '';
      expect(text).toContain(TEAM_INDEX_HEADING);
      expect(text).toContain('(on-call.md)');
    } finally {
      await server.close();
    }
  });

  it('sends nothing when no team server is configured', async () => {
    const out = await sessionStartHook(
      { source: 'startup', raw: {} },
      { environment: { cwd: join(root, 'project'), env: {}, homedir: root }, memoryDir },
    );
    expect(out.hookSpecificOutput?.additionalContext).toContain('(release-train.md)');
  });
});
