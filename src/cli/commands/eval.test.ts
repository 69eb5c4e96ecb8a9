import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureDir, fixtureZip } from '../../eval/__fixtures__/locomo.js';
import type { LocomoReport } from '../../eval/report.js';
import { runCaptured, testIo } from '../test-io.js';

describe('engram eval locomo', () => {
  it('reports engram and BM25 per split and category as JSON, and dumps every ranking', async () => {
    const data = fixtureDir(['26', '44']);
    const io = testIo({ cwd: data });
    const run = await runCaptured(
      [
        'eval',
        'locomo',
        '--data',
        '.',
        '--k',
        '2,1',
        '--json',
        '--dump',
        'out/r.jsonl',
        '--baseline',
        'bm25',
      ],
      io,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as LocomoReport;
    expect(report).toMatchObject({
      conversations: 2,
      questions: 14,
      observations: 10,
      k: [1, 2],
      splits: { dev: ['26'], heldout: ['44'] },
    });
    expect(Object.keys(report.rankers)).toEqual(['engram', 'bm25']);
    for (const ranker of Object.values(report.rankers)) {
      for (const split of ['dev', 'heldout', 'all'] as const) {
        expect(Object.keys(ranker[split])).toEqual(['overall', 'answerable', 'categories']);
        expect(Object.keys(ranker[split].overall.recall)).toEqual(['1', '2']);
      }
      expect(ranker.all.overall.ceiling).toEqual({ recall: 75, hitAny: 83.33 });
    }
    // Both conversations are the same text, so both splits must score the same.
    expect(report.rankers.engram!.dev.overall).toEqual(report.rankers.engram!.heldout.overall);

    const lines = readFileSync(join(data, 'out/r.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(14);
    const first = JSON.parse(lines[0]!);
    expect(Object.keys(first)).toEqual(['sample', 'question', 'category', 'evidence', 'ranked']);
    expect(first).toMatchObject({ sample: '26', question: 'What pet does Ana have?', category: 4 });
    expect(first.evidence).toEqual(['D1:3']);
    // The question names the pet concept; the cat memory must come first.
    expect(first.ranked[0]).toBe('D1:3');
    expect(first.ranked).toHaveLength(2);
    expect(readFileSync(join(data, 'out/r.bm25.jsonl'), 'utf8').trim().split('\n')).toHaveLength(
      14,
    );
  });

  it('takes --cwd and reads a relative --data from it', async () => {
    const data = fixtureDir(['26']);
    const run = await runCaptured(
      ['eval', 'locomo', '--data', '.', '--k', '1', '--json', '--cwd', data],
      testIo({ cwd: '/' }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).conversations).toBe(1);
  });

  it('reads the release zip and prints a table', async () => {
    const data = fixtureDir();
    writeFileSync(join(data, 'locomo10.zip'), fixtureZip(['26', '44']));
    const io = testIo({ cwd: data });
    const run = await runCaptured(['eval', 'locomo', '--data', 'locomo10.zip'], io);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/2 conversations, 14 questions, 10 observations/);
    expect(run.stdout).toMatch(/^engram \(/m);
    expect(run.stdout).toMatch(/R@5 +R@10 +R@25 +R@50/);
    expect(run.stdout).toMatch(/heldout, categories 1-4/);
    expect(run.stdout).not.toMatch(/^bm25/m);
  });

  it('rejects bad cut-offs and unknown baselines with exit 2, missing data with exit 3', async () => {
    const io = testIo({ cwd: fixtureDir() });
    expect((await runCaptured(['eval', 'locomo', '--data', '.', '--k', '5,x'], io)).code).toBe(2);
    expect((await runCaptured(['eval', 'locomo', '--data', '.', '--k', '0'], io)).code).toBe(2);
    const baseline = await runCaptured(
      ['eval', 'locomo', '--data', '.', '--baseline', 'dragon'],
      io,
    );
    expect(baseline.code).toBe(2);
    expect(baseline.stderr).toMatch(/unknown baseline/);
    const missing = await runCaptured(['eval', 'locomo', '--data', 'missing.zip'], io);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/not found/);
  });
});
