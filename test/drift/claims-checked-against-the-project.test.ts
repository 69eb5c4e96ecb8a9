import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, workspace } from './support.js';

beforeAll(requireBuild);

const RENDER = `${Array.from({ length: 160 }, (_, i) => `// ${i + 1}`).join('\n')}\nexport function renderBlit() {}\n`;

interface Selected {
  file: string;
  header: string;
}

function blitProject() {
  const ws = workspace({ 'src/render.ts': RENDER, 'README.md': '# game\n' });
  ws.memory(
    'sprite-blit.md',
    {
      name: 'sprite blit',
      description: 'where the sprite blit lives in the renderer',
      type: 'project',
    },
    'The sprite blit is at `src/render.ts:142`, in `renderBlit()`.\n**Why:** profiling showed it hot.',
  );
  return ws;
}

const QUERY = 'where does the sprite blit live in the renderer';

describe('a memory whose cited file was renamed', () => {
  it('says so in the header recall freezes, counts a 1/1 stale hit, and is never selected once revoked', async () => {
    const ws = blitProject();
    await ws.engram(['index', '--rebuild']);
    const before = await ws.json(['recall', QUERY, '--model', 'offline']);
    const first = (before.selected as Selected[])[0]!;
    expect(first.file).toBe('sprite-blit.md');
    expect(first.header).not.toMatch(/no longer exists|fail/);

    ws.git('mv', 'src/render.ts', 'src/renderer.ts');
    const after = await ws.json(['recall', QUERY, '--model', 'offline']);
    const memory = (after.selected as Selected[])[0]!;
    expect(memory.file).toBe('sprite-blit.md');
    expect(memory.header).toContain('`src/render.ts` no longer exists');
    expect(memory.header).toMatch(/1 failed/);
    expect(after.injection as string).toContain(memory.header);
    expect(after.shape).toMatchObject({
      selected: 1,
      injected: 1,
      contradictedSelected: 1,
      claimStaleHitRatio: 1,
    });

    // The recall log holds that recall's ratio, and stats sums it next to the age-based one.
    const log = readFileSync(join(ws.dir, '.engram/recall-metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(log.at(-1)).toMatchObject({ contradictedSelected: 1, claimStaleHitRatio: 1 });
    expect(log.at(-2)).toMatchObject({ contradictedSelected: 0, claimStaleHitRatio: 0 });
    const stats = await ws.json(['stats']);
    expect(stats).toMatchObject({
      contradictedSelected: 1,
      injectedTotal: 2,
      claimStaleHitRatio: 0.5,
    });
    expect(stats.staleHitRatio).toBe(0);
    expect(stats.overTime).toHaveLength(1);

    const revoke = await ws.engram([
      'revoke',
      'sprite-blit.md',
      '--reason',
      'the renderer was split; the blit moved',
    ]);
    expect(revoke.code, revoke.stderr).toBe(0);
    for (const query of [QUERY, 'sprite blit renderer', 'renderBlit src/render.ts']) {
      const again = await ws.json(['recall', query, '--model', 'offline']);
      expect(again.selected).toEqual([]);
    }
    expect(readFileSync(join(ws.dir, 'sprite-blit.md'), 'utf8')).toMatch(/status: revoked/);
    expect(readFileSync(join(ws.dir, 'MEMORY.md'), 'utf8')).not.toContain('sprite-blit.md');
  });

  it('leaves the header exactly as without verification when the checks run past their budget', async () => {
    const ws = blitProject();
    ws.git('mv', 'src/render.ts', 'src/renderer.ts');
    const now = '2026-03-01T12:00:00Z';
    const plain = await ws.json([
      'recall',
      QUERY,
      '--model',
      'offline',
      '--now',
      now,
      '--no-verify',
      '--no-log',
    ]);
    const late = await ws.json([
      'recall',
      QUERY,
      '--model',
      'offline',
      '--now',
      now,
      '--verify-budget-ms',
      '0',
      '--no-log',
    ]);
    expect(late.injection).toBe(plain.injection);
    expect(late.shape).toMatchObject({ verifiedSelected: 0, contradictedSelected: 0 });
  });

  it('checks on demand with engram verify, naming each failed claim', async () => {
    const ws = blitProject();
    ws.git('rm', '-q', 'src/render.ts');
    const run = await ws.json(['verify']);
    expect(run.memories).toEqual([
      {
        file: 'sprite-blit.md',
        total: 2,
        checked: 2,
        failed: 2,
        checks: [
          {
            kind: 'line',
            text: 'src/render.ts:142',
            status: 'fails',
            detail: '`src/render.ts` no longer exists (cited at line 142)',
          },
          {
            kind: 'identifier',
            text: 'renderBlit()',
            status: 'fails',
            detail: '`renderBlit()` no longer occurs in the project',
          },
        ],
      },
    ]);
  });
});

describe('engram verify over the memory chain', () => {
  it("checks the user layer's memories too, names their layer, and fills the cache recall reads", async () => {
    const ws = blitProject();
    const userDir = join(ws.env.ENGRAM_HOME!, 'user', 'memory');
    mkdirSync(userDir, { recursive: true });
    writeFileSync(
      join(userDir, 'render-habits.md'),
      '---\nname: render habits\ndescription: the user profiles the sprite blit in the renderer first\ntype: user\n---\nStart at `src/blit-legacy.ts` when profiling the sprite blit.\n',
    );
    const all = await ws.json(['verify']);
    expect(all.unverified).toEqual([]);
    expect(all.memories).toEqual([
      expect.objectContaining({ file: 'sprite-blit.md', failed: 0 }),
      expect.objectContaining({ file: 'render-habits.md', layer: 'user', total: 1, failed: 1 }),
    ]);
    expect((all.memories as Array<Record<string, unknown>>)[0]).not.toHaveProperty('layer');
    const text = await ws.engram(['verify']);
    expect(text.stdout).toContain(
      'render-habits.md (user layer): 1 of 1 claims checked, 1 failed\n',
    );
    expect(text.stdout).toContain('`src/blit-legacy.ts` no longer exists');
    // Named by file, found in the layer that has it (the detached refresh names files so).
    const one = await ws.json(['verify', 'render-habits.md']);
    expect(one.memories).toEqual([
      expect.objectContaining({ file: 'render-habits.md', layer: 'user' }),
    ]);
    // Its verdict is cached where recall looks it up: the project's cache, as its claims are
    // about this project (nothing is written into the user layer's folder).
    const cache = JSON.parse(readFileSync(join(ws.dir, '.engram', 'claim-checks.json'), 'utf8'));
    expect(Object.keys(cache.entries).sort()).toEqual(['render-habits.md', 'sprite-blit.md']);
    expect(existsSync(join(userDir, '.engram', 'claim-checks.json'))).toBe(false);
  });
});

describe('engram rm and engram revoke', () => {
  it('rm says it deletes and points at revoke; revoke keeps the file, marked, with its successor', async () => {
    const ws = blitProject();
    ws.memory(
      'sprite-blit-v2.md',
      { name: 'sprite blit v2', description: 'the blit now lives in renderer.ts', type: 'project' },
      'In `src/renderer.ts`.\n**Why:** the split.',
    );
    ws.memory(
      'scratch.md',
      { name: 'scratch', description: 'a scratch note', type: 'user' },
      'nothing',
    );
    await ws.engram(['index', '--rebuild']);
    const rm = await ws.engram(['rm', 'scratch.md']);
    expect(rm.code).toBe(0);
    expect(rm.stdout).toMatch(/deleted/i);
    expect(rm.stderr).toMatch(/engram revoke/);

    const revoked = await ws.json([
      'revoke',
      'sprite-blit',
      '--reason',
      'moved',
      '--superseded-by',
      'sprite-blit-v2.md',
    ]);
    expect(revoked).toEqual({
      file: 'sprite-blit.md',
      status: 'revoked',
      reason: 'moved',
      supersededBy: 'sprite-blit-v2.md',
    });
    const text = readFileSync(join(ws.dir, 'sprite-blit.md'), 'utf8');
    expect(text).toMatch(/superseded_by: sprite-blit-v2\.md/);
    expect(text).toMatch(/reason: moved/);
    expect((await ws.engram(['revoke', 'sprite-blit.md', '--reason', 'again'])).code).toBe(2);
    expect((await ws.engram(['revoke', 'nothing-here.md', '--reason', 'x'])).code).toBe(3);
    expect((await ws.engram(['revoke', 'sprite-blit-v2.md'])).code).toBe(2); // --reason is required
    const audit = await ws.engram(['audit']);
    expect(audit.code, audit.stdout).toBe(0);
  });
});
