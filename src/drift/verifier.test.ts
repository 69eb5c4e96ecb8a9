import { mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verdictsWithin } from '../recall/verification.js';
import { fixtureProject, git, memoryText, RENDER_TS } from './__fixtures__/project.js';
import { readClaimCache } from './claim-cache.js';
import { type ProjectProbe, projectProbe } from './project-probe.js';
import { createClaimVerifier } from './verifier.js';

const BLIT = memoryText(
  'blit path',
  'where the sprite blit happens',
  'The sprite blit is at `src/render.ts:142` in `renderBlit()`; flags in `--fast-blit`.',
);

function memoryDir(): string {
  return mkdtempSync(join(tmpdir(), 'engram-mem-'));
}

describe('claim verification against a git project', () => {
  it('confirms claims that hold and names the ones the project contradicts', async () => {
    const root = fixtureProject({ 'src/render.ts': RENDER_TS, 'src/cli.ts': "'--fast-blit'\n" });
    const dir = memoryDir();
    const verifier = createClaimVerifier({ projectDir: root, memoryDir: dir });
    const before = await verifier.verify([{ file: 'blit.md', content: BLIT }]);
    expect(before.get('blit.md')).toEqual({ total: 3, checked: 3, failed: 0, note: '' });

    git(root, 'mv', 'src/render.ts', 'src/renderer.ts');
    const after = await verifier.verify([{ file: 'blit.md', content: BLIT }]);
    expect(after.get('blit.md')).toMatchObject({ total: 3, checked: 3, failed: 1 });
    expect(after.get('blit.md')!.note).toContain('`src/render.ts` no longer exists');
    expect(after.get('blit.md')!.note).toContain('verify before relying on this');
  });

  it('says a cited line is past the end of a file that shrank, without committing', async () => {
    const root = fixtureProject({ 'src/render.ts': RENDER_TS });
    writeFileSync(join(root, 'src/render.ts'), 'export function renderBlit() {}\n');
    const verifier = createClaimVerifier({ projectDir: root, memoryDir: memoryDir() });
    const v = await verifier.verifyMemories([{ file: 'blit.md', content: BLIT }]);
    const line = v.get('blit.md')!.checks.find((c) => c.claim.kind === 'line')!;
    expect(line).toMatchObject({ status: 'fails' });
    expect(line.detail).toBe('`src/render.ts` has 1 lines, so line 142 is not there');
  });

  it('marks a memory whose every claim fails as possibly history', async () => {
    const root = fixtureProject({ 'README.md': 'nothing here\n' });
    const verifier = createClaimVerifier({ projectDir: root, memoryDir: memoryDir() });
    const v = await verifier.verify([{ file: 'blit.md', content: BLIT }]);
    expect(v.get('blit.md')).toMatchObject({ total: 3, checked: 3, failed: 3 });
    expect(v.get('blit.md')!.note).toMatch(/none of 3 hold.*may describe history/);
  });

  it('does not let a memory inside the project confirm its own identifiers', async () => {
    const root = fixtureProject({ 'README.md': 'x\n' });
    const dir = join(root, 'memory');
    mkdirSync(dir);
    writeFileSync(join(dir, 'blit.md'), BLIT); // untracked and not ignored, but the memory itself
    const verifier = createClaimVerifier({ projectDir: root, memoryDir: dir });
    const v = await verifier.verifyMemories([{ file: 'blit.md', content: BLIT }]);
    expect(v.get('blit.md')!.checks.find((c) => c.claim.kind === 'identifier')!.status).toBe(
      'fails',
    );
    writeFileSync(join(root, 'notes.txt'), 'renderBlit() lives on\n'); // a real project file
    const again = await verifier.verifyMemories([{ file: 'blit.md', content: BLIT }]);
    expect(again.get('blit.md')!.checks.find((c) => c.claim.text === 'renderBlit()')!.status).toBe(
      'holds',
    );
  });

  it('caches by memory text and project state, and checks again when either changes', async () => {
    const root = fixtureProject({ 'src/render.ts': RENDER_TS });
    const dir = memoryDir();
    let contains = 0;
    const counting = (): ProjectProbe => {
      const real = createProbe(root, dir);
      return {
        ...real,
        contains: (t) => {
          contains++;
          return real.contains(t);
        },
      };
    };
    const run = (content: string) =>
      createClaimVerifier({ projectDir: root, memoryDir: dir, probe: counting() }).verify([
        { file: 'blit.md', content },
      ]);
    await run(BLIT);
    const afterFirst = contains;
    expect(afterFirst).toBeGreaterThan(0);
    await run(BLIT);
    expect(contains).toBe(afterFirst); // cache hit: nothing searched
    await run(`${BLIT}\nedited`);
    expect(contains).toBeGreaterThan(afterFirst); // new text: checked again
    const cache = await readClaimCache(join(dir, '.engram/claim-checks.json'));
    expect(Object.keys(cache.entries)).toEqual(['blit.md']);
    const beforeRename = contains;
    renameSync(join(root, 'src/render.ts'), join(root, 'src/other.ts')); // worktree changed
    await run(`${BLIT}\nedited`);
    expect(contains).toBeGreaterThan(beforeRename);
  });

  it('gives no verdict at all when the checks run past the budget', async () => {
    const root = fixtureProject({ 'src/render.ts': RENDER_TS });
    const real = createProbe(root, memoryDir());
    const stuck: ProjectProbe = { ...real, contains: () => new Promise(() => undefined) };
    const dir = memoryDir();
    const verifier = createClaimVerifier({
      projectDir: root,
      memoryDir: dir,
      probe: stuck,
      budgetMs: 200,
    });
    const v = await verifier.verify([{ file: 'blit.md', content: BLIT }]);
    expect(v.size).toBe(0);
    // Nothing half-checked is kept either.
    expect((await readClaimCache(join(dir, '.engram/claim-checks.json'))).entries).toEqual({});
  });

  it('answers from the cache alone in cache-only mode and reports the misses', async () => {
    const root = fixtureProject({ 'src/render.ts': RENDER_TS });
    const dir = memoryDir();
    const missed: string[][] = [];
    const cacheOnly = () =>
      createClaimVerifier({
        projectDir: root,
        memoryDir: dir,
        mode: 'cache-only',
        onMisses: (files) => missed.push(files),
      });
    expect((await cacheOnly().verify([{ file: 'blit.md', content: BLIT }])).size).toBe(0);
    expect(missed).toEqual([['blit.md']]);
    await createClaimVerifier({ projectDir: root, memoryDir: dir }).verifyMemories([
      { file: 'blit.md', content: BLIT },
    ]);
    const hit = await cacheOnly().verify([{ file: 'blit.md', content: BLIT }]);
    expect(hit.get('blit.md')).toMatchObject({ total: 3, failed: 1 }); // --fast-blit is not in this project
    expect(missed).toHaveLength(1);
  });

  it('stores checks under the quick key the project has once its full state was read', async () => {
    // A plain `git status` (an editor's, the user's) rewrites the index when entries are racily
    // clean, which moves the quick key; this probe does so every time its full state is read.
    const root = fixtureProject({ 'src/render.ts': RENDER_TS });
    const dir = memoryDir();
    const real = createProbe(root, dir);
    let refreshes = 0;
    const refreshing: ProjectProbe = {
      ...real,
      state: async () => {
        const state = await real.state();
        refreshes++; // the index is written as the status finishes
        return state;
      },
      quickState: () => `quick:index-written-${refreshes}-times`,
    };
    await createClaimVerifier({
      projectDir: root,
      memoryDir: dir,
      probe: refreshing,
    }).verifyMemories([{ file: 'blit.md', content: BLIT }]);
    const missed: string[][] = [];
    const hit = await createClaimVerifier({
      projectDir: root,
      memoryDir: dir,
      probe: refreshing,
      mode: 'cache-only',
      onMisses: (files) => missed.push(files),
    }).verify([{ file: 'blit.md', content: BLIT }]);
    expect(hit.get('blit.md')).toMatchObject({ total: 3, failed: 1 });
    expect(missed).toEqual([]);
  });

  it('has a prepared cache-only round answer a zero wait, a hit with its verdict and a miss with a refresh', async () => {
    // The prompt hook waits for no verdict (waitMs 0): whatever the round did not have when it
    // was prepared is left out of the turn, and a miss noticed only after the turn starts no refresh.
    const root = fixtureProject({ 'src/render.ts': RENDER_TS });
    const dir = memoryDir();
    await createClaimVerifier({ projectDir: root, memoryDir: dir }).verifyMemories([
      { file: 'blit.md', content: BLIT },
    ]);
    const missed: string[][] = [];
    const hook = createClaimVerifier({
      projectDir: root,
      memoryDir: dir,
      mode: 'cache-only',
      waitMs: 0,
      onMisses: (files) => missed.push(files),
    });
    hook.prepare();
    const turn = await verdictsWithin(hook, [
      { file: 'blit.md', content: BLIT },
      { file: 'new.md', content: memoryText('new', 'new', 'See `src/new.ts`.') },
    ]);
    expect(turn.get('blit.md')).toMatchObject({ total: 3, failed: 1 });
    expect(missed).toEqual([['new.md']]);
    hook.dispose();
  });

  it('teaches a cached entry the quick key the project moved to while its full state still matches', async () => {
    // An editor's plain `git status` rewrites a racily clean index: the quick key moves, the tree
    // does not. The refresh the hook's miss starts finds every full state cached; unless it records
    // the new key, every later turn misses and starts another refresh.
    const root = fixtureProject({ 'src/render.ts': RENDER_TS });
    const dir = memoryDir();
    const real = createProbe(root, dir);
    let quick = 'quick:before';
    const probe: ProjectProbe = { ...real, quickState: () => quick };
    const verifier = (mode: 'check' | 'cache-only', onMisses?: (files: string[]) => void) =>
      createClaimVerifier({
        projectDir: root,
        memoryDir: dir,
        probe,
        mode,
        ...(onMisses ? { onMisses } : {}),
      });
    const memory = [{ file: 'blit.md', content: BLIT }];
    await verifier('check').verifyMemories(memory);
    quick = 'quick:index-rewritten';
    const missed: string[][] = [];
    expect((await verifier('cache-only', (f) => missed.push(f)).verify(memory)).size).toBe(0);
    await verifier('check').verifyMemories(memory); // the refresh: a full-state hit
    const next = await verifier('cache-only', (f) => missed.push(f)).verify(memory);
    expect(next.get('blit.md')).toMatchObject({ total: 3, failed: 1 });
    expect(missed).toEqual([['blit.md']]);
  });

  it('walks the tree when the project is not a git repository', async () => {
    const root = fixtureProject({ 'src/renderer.ts': RENDER_TS }, { git: false });
    const verifier = createClaimVerifier({ projectDir: root, memoryDir: memoryDir() });
    const v = await verifier.verifyMemories([{ file: 'blit.md', content: BLIT }]);
    const byKind = Object.fromEntries(
      v.get('blit.md')!.checks.map((c) => [c.claim.text, c.status]),
    );
    expect(byKind).toEqual({
      'src/render.ts:142': 'fails',
      'renderBlit()': 'holds',
      '--fast-blit': 'fails',
    });
  });
});

function createProbe(root: string, memoryDir: string): ProjectProbe {
  return projectProbe(root, { memoryDir });
}

describe('the quick project state a hook can afford', () => {
  it('changes with a commit and with git add, without starting a process', async () => {
    const root = fixtureProject({ 'a.ts': 'x\n' });
    const probe = projectProbe(root);
    const first = await probe.quickState();
    expect(await probe.quickState()).toBe(first);
    writeFileSync(join(root, 'b.ts'), 'y\n');
    git(root, 'add', 'b.ts');
    const staged = await probe.quickState();
    expect(staged).not.toBe(first);
    git(root, 'commit', '-q', '-m', 'b');
    expect(await probe.quickState()).not.toBe(staged);
  });
});
