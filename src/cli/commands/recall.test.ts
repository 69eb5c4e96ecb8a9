import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAY, NOW, seedMemories, tempMemoryDir } from '../../recall/__fixtures__/memdir.js';
import { runCaptured, testIo } from '../test-io.js';

async function dirWithMemories(): Promise<string> {
  const dir = tempMemoryDir();
  await seedMemories(dir, [
    { file: 'bun-test.md', description: 'Run tests with bun test, never jest', type: 'feedback' },
    {
      file: 'grep-docs.md',
      description: 'Grep usage: flags for searching tests',
      type: 'reference',
      ageDays: 40,
    },
    { file: 'release.md', description: 'Release checklist for the mobile app', type: 'project' },
  ]);
  return dir;
}

describe('engram recall', () => {
  it('prints the exact contract with --json', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    const run = await runCaptured(
      [
        'recall',
        // Each of the two shares a word of its own with it ("bun", "grep"), so both are chosen.
        'bun or grep for tests',
        '--dir',
        dir,
        '--json',
        '--model',
        'offline',
        '--now',
        new Date(NOW).toISOString(),
      ],
      io,
    );
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(Object.keys(out)).toEqual(['selected', 'injection', 'shape']);
    expect(out.selected.map((m: { file: string }) => m.file)).toEqual([
      'bun-test.md',
      'grep-docs.md',
    ]);
    for (const m of out.selected) {
      expect(Object.keys(m)).toEqual([
        'file',
        'layer',
        'type',
        'description',
        'header',
        'bytes',
        'truncated',
      ]);
      expect(out.injection).toContain(m.header);
    }
    expect(out.selected[1].header).toMatch(/^This memory is 40 days old/);
    expect(out.injection.startsWith('<system-reminder>')).toBe(true);
    expect(out.shape).toMatchObject({
      selector: 'offline',
      candidates: 3,
      selected: 2,
      staleSelected: 1,
      fallback: false,
      fallbackUsed: false,
    });
    // Every measure the issue names, under its own name.
    for (const key of ['injectedBytes', 'sessionCumulativeBytes', 'timeSpentMs', 'durationMs']) {
      expect(typeof out.shape[key]).toBe('number');
    }
    expect(out.shape.sessionCumulativeBytes).toBe(out.shape.injectedBytes);
    expect(out.shape.timeSpentMs).toBe(out.shape.durationMs);
    // Each memory's text bytes; the shape also counts headers and markers.
    const textBytes = out.selected.reduce((sum: number, m: { bytes: number }) => sum + m.bytes, 0);
    expect(out.shape.injectedBytes).toBeGreaterThan(textBytes);
  });

  it('cuts a 50 KB memory to at most 4,096 bytes ending at a newline, with a note naming it', async () => {
    const dir = tempMemoryDir();
    const body = Array.from(
      { length: 1200 },
      (_, i) => `Step ${i}: apply the schema migration.`,
    ).join('\n');
    await seedMemories(dir, [
      { file: 'runbook.md', description: 'schema migration runbook', body },
    ]);
    const io = testIo();
    const run = await runCaptured(
      ['recall', 'apply the schema migration', '--dir', dir, '--json', '--model', 'offline'],
      io,
    );
    const out = JSON.parse(run.stdout);
    const [m] = out.selected;
    expect(m).toMatchObject({ file: 'runbook.md', truncated: true });
    expect(m.bytes).toBeLessThanOrEqual(4096);
    const payload: string = out.injection.split(`${m.header}\n\n`)[1];
    const kept = payload.slice(0, payload.indexOf('[Shortened'));
    expect(Buffer.byteLength(kept)).toBe(m.bytes);
    expect(kept.endsWith('\n')).toBe(true);
    expect(payload).toContain(`Read the full memory at ${join(dir, 'runbook.md')}`);
  });

  it('leaves out --surfaced files and passes --tools to the selector input', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    const run = await runCaptured(
      [
        'recall',
        'how do I run the tests',
        '--dir',
        dir,
        '--json',
        '--model',
        'offline',
        '--surfaced',
        'bun-test.md',
        '--tools',
        'Read,Grep',
      ],
      io,
    );
    const out = JSON.parse(run.stdout);
    expect(out.selected.map((m: { file: string }) => m.file)).toEqual(['grep-docs.md']);
    expect(out.shape.surfacedExcluded).toBe(1);
  });

  it('recognises a --surfaced file however it is spelled: ./name or an absolute path', async () => {
    const dir = await dirWithMemories();
    for (const spelling of ['./bun-test.md', join(dir, 'bun-test.md')]) {
      const run = await runCaptured(
        ['recall', 'how do I run the tests', '--dir', dir, '--json', '--model', 'offline'].concat([
          '--surfaced',
          spelling,
        ]),
        testIo(),
      );
      const out = JSON.parse(run.stdout);
      expect(out.selected.map((m: { file: string }) => m.file)).toEqual(['grep-docs.md']);
      expect(out.shape.surfacedExcluded).toBe(1);
    }
  });

  it('renders headers as of --now', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    const later = new Date(NOW + 3 * DAY).toISOString();
    const run = await runCaptured(
      [
        'recall',
        'mobile app release',
        '--dir',
        dir,
        '--json',
        '--model',
        'offline',
        '--now',
        later,
      ],
      io,
    );
    const out = JSON.parse(run.stdout);
    expect(out.selected[0].header).toMatch(/^This memory is 3 days old/);
    expect(out.shape.at).toBe(later);
  });

  it('prints selected memories, the injected bytes and the shape as text', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    const run = await runCaptured(
      ['recall', 'mobile app release', '--dir', dir, '--model', 'offline'],
      io,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Selected 1 of 3 candidates \(offline ranker\)/);
    expect(run.stdout).toContain('- [project] release.md');
    expect(run.stdout).toContain('<system-reminder>');
    expect(run.stdout).toMatch(/--- shape ---\n[\s\S]*selected: 1/);
    // A map in the shape is printed as JSON, not as "[object Object]".
    expect(run.stdout).not.toContain('[object Object]');
    expect(run.stdout).toMatch(/^layerDirs: \{"project":".+"\}$/m);
  });

  it('falls back to the offline ranker with a note when auto finds no model', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    const run = await runCaptured(['recall', 'mobile app release', '--dir', dir, '--json'], io);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/no model configured/);
    expect(JSON.parse(run.stdout).shape.selector).toBe('offline');
  });

  it('rejects a bad --now and a bad --model as bad input', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    expect(
      (await runCaptured(['recall', 'a b', '--dir', dir, '--now', 'yesterday-ish'], io)).code,
    ).toBe(2);
    expect((await runCaptured(['recall', 'a b', '--dir', dir, '--model', 'gpt'], io)).code).toBe(2);
    const stale = await runCaptured(['recall', 'a b', '--dir', dir, '--stale-days', 'x'], io);
    expect(stale.code).toBe(2);
    // Nothing is said before it, and the message names the value and what would do.
    expect(stale.stderr).toBe('engram: --stale-days needs a number of 0 or more (got "x")\n');
    const negative = await runCaptured(['recall', 'a b', '--dir', dir, '--stale-days', '-3'], io);
    expect([negative.code, negative.stderr]).toEqual([
      2,
      'engram: --stale-days needs a number of 0 or more (got "-3")\n',
    ]);
  });

  it('refuses a --log whose folder does not exist, creating nothing; logs to one that does', async () => {
    const dir = await dirWithMemories();
    const root = mkdtempSync(join(tmpdir(), 'engram-log-'));
    const io = testIo({ cwd: root });
    const typo = await runCaptured(
      ['recall', 'bun test', '--dir', dir, '--log', 'logz/r.jsonl'],
      io,
    );
    expect(typo.code).toBe(3);
    expect(typo.stderr).toContain(`--log logz/r.jsonl: no such directory ${join(root, 'logz')}`);
    expect(typo.stdout).toBe('');
    expect(existsSync(join(root, 'logz'))).toBe(false);
    const ok = await runCaptured(['recall', 'bun test', '--dir', dir, '--log', 'r.jsonl'], io);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(root, 'r.jsonl'), 'utf8'))).toMatchObject({ selected: 1 });
  });
});

describe('engram stats', () => {
  it('summarises the recalls logged in the memory directory', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    for (const q of [
      'bun or grep for tests',
      'mobile app release',
      'something else entirely',
      'hello',
    ]) {
      await runCaptured(
        ['recall', q, '--dir', dir, '--model', 'offline', '--now', new Date(NOW).toISOString()],
        io,
      );
    }
    const run = await runCaptured(['stats', '--dir', dir, '--json'], io);
    expect(run.code).toBe(0);
    const stats = JSON.parse(run.stdout);
    expect(stats).toMatchObject({
      recalls: 4,
      ran: 3,
      skipped: { single_word: 1 },
      selectionCounts: [1, 1, 1, 0, 0, 0],
    });
    expect(stats.staleHitRatio).toBeCloseTo(1 / 3);
    const text = await runCaptured(['stats', '--dir', dir], io);
    expect(text.stdout).toMatch(/stale-hit ratio: 33\.3% \(1 of 3\)/);
    expect(text.stdout).toMatch(/budget exhausted: 0/);
  });

  it('raises the always-zero alarm after five recalls that found nothing', async () => {
    const dir = await dirWithMemories();
    const io = testIo();
    for (let i = 0; i < 5; i++) {
      await runCaptured(
        ['recall', `weather in paris day ${i}`, '--dir', dir, '--model', 'offline'],
        io,
      );
    }
    const stats = JSON.parse((await runCaptured(['stats', '--dir', dir, '--json'], io)).stdout);
    expect(stats.selectionCounts[0]).toBe(5);
    expect(stats.alarms.join('\n')).toMatch(/selected nothing in all 5 runs/);
    expect((await runCaptured(['stats', '--dir', dir], io)).stdout).toMatch(/^ALARM: /m);
  });

  it('reports an empty log without failing', async () => {
    const io = testIo();
    const run = await runCaptured(['stats', '--dir', tempMemoryDir(), '--json'], io);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ recalls: 0, staleHitRatio: null });
  });
});
