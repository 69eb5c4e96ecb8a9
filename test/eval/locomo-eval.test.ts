import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONV_26, CONV_44, type Json, recomputed, strip, workspace } from './support.js';

describe('engram eval locomo on a tiny synthetic release', () => {
  it('reports the paper metric, hit-any and the ceiling per split and category, by hand', async () => {
    const w = workspace();
    const dump = join(w.root, 'out', 'rankings.jsonl');
    const run = await w.cli([
      'eval',
      'locomo',
      '--data',
      w.zipPath,
      '--k',
      '1,2',
      '--json',
      '--dump',
      dump,
      '--baseline',
      'bm25',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report: Json = JSON.parse(run.stdout);
    expect(report.conversations).toBe(2);
    expect(report.questions).toBe(9);
    expect(report.observations).toBe(7);
    const e = report.rankers.engram;

    // Dev (26), k=1: q1 1, q2 ½ (either half first), q3 ½ (D9:9 no observation has), q4 1.
    expect(e.dev.overall.recall).toEqual({ '1': 75, '2': 87.5 });
    expect(e.dev.overall.hitAny).toEqual({ '1': 100, '2': 100 });
    expect(e.dev.overall.ceiling).toEqual({ recall: 87.5, hitAny: 100 });
    // Categories 1–4 only: q1, q2, q3.
    expect(e.dev.answerable.recall).toEqual({ '1': 66.67, '2': 83.33 });
    // Held out (44): q1 1, q2 1, q3 ½ (D2:8 is nobody's), q4 1; q5 has no id and is not scored.
    expect(e.heldout.overall.questions).toBe(5);
    expect(e.heldout.overall.scored).toBe(4);
    expect(e.heldout.overall.recall).toEqual({ '1': 87.5, '2': 87.5 });
    // Overall: (3 + 3.5) / 8 at k=1, (3.5 + 3.5) / 8 at k=2.
    expect(e.all.overall.recall).toEqual({ '1': 81.25, '2': 87.5 });
    expect(e.all.overall.scored).toBe(8);
    expect(e.all.overall.ceiling.recall).toBe(87.5);
    // Per category, all conversations: 4 → q1(26) 1, q3(26) ½, q1(44) 1; 1 → q2(26) ½; 5 → 1, 1.
    expect(e.all.categories['4'].recall['1']).toBe(83.33);
    expect(e.all.categories['1'].recall).toEqual({ '1': 50, '2': 100 });
    expect(e.all.categories['1'].questions).toBe(2);
    expect(e.all.categories['5'].recall['1']).toBe(100);
    expect(e.all.categories['2'].recall['1']).toBe(100);
    expect(e.all.categories['3'].recall['1']).toBe(50);
    expect(report.rankers.bm25).toBeDefined();

    // The dump: one line per question, ids normalised, top-k observations in order.
    const lines = readFileSync(dump, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(9);
    for (const l of lines) {
      expect(Object.keys(l).sort()).toEqual([
        'category',
        'evidence',
        'question',
        'ranked',
        'sample',
      ]);
      expect(l.ranked.length).toBe(2);
    }
    const bird = lines.find((l) => l.question === 'What kind of bird did Mira adopt?');
    expect(bird).toMatchObject({
      sample: expect.stringMatching(/26/),
      category: 4,
      evidence: ['D1:2'],
    });
    expect(bird.ranked[0]).toBe('D1:2');
    const marathon = lines.find((l) => l.question.startsWith('Which city hosted'));
    expect(marathon.evidence).toEqual(['D2:3', 'D2:7']);
    expect([...marathon.ranked].sort()).toEqual(['D2:3', 'D2:7']);
    const sister = lines.find((l) => l.question === 'Where does the sister Noor live now?');
    expect(sister.evidence.sort()).toEqual(['D1:3', 'D1:4']);
    expect(sister.ranked[0].split(',').sort()).toEqual(['D1:3', 'D1:4']);
    expect(lines.find((l) => l.question.startsWith('When did Lena')).evidence).toEqual(['D3:10']);
    expect(lines.find((l) => l.question.startsWith('What is the weather')).evidence).toEqual([]);

    // BM25's rankings go beside, and its numbers recompute from them the same way.
    expect(readdirSync(join(w.root, 'out')).sort()).toEqual([
      'rankings.bm25.jsonl',
      'rankings.jsonl',
    ]);
    const bm25: Json[] = readFileSync(join(w.root, 'out', 'rankings.bm25.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(bm25.map((l) => l.question)).toEqual(lines.map((l) => l.question));
    for (const k of [1, 2]) {
      expect(report.rankers.bm25.all.overall.recall[String(k)]).toBe(recomputed(bm25, k));
      expect(e.all.overall.recall[String(k)]).toBe(recomputed(lines, k));
    }
  });

  it('reads the same data unpacked, as a combined JSON, and prints a table without --json', async () => {
    const w = workspace();
    const fromZip: Json = JSON.parse(
      (await w.cli(['eval', 'locomo', '--data', w.zipPath, '--json'])).stdout,
    );
    const dir = join(w.root, 'unpacked');
    mkdirSync(dir);
    writeFileSync(join(dir, '26.json'), JSON.stringify(CONV_26));
    writeFileSync(join(dir, '44.json'), JSON.stringify(CONV_44));
    const fromDir: Json = JSON.parse(
      (await w.cli(['eval', 'locomo', '--data', 'unpacked', '--json'])).stdout,
    );
    expect(strip(fromDir)).toEqual(strip(fromZip));
    const nested = [CONV_26, CONV_44].map((c, i) => {
      const {
        qa,
        session_1_observation,
        session_2_observation,
        session_3_observation,
        ...conversation
      } = c as typeof CONV_26 & typeof CONV_44;
      return {
        sample_id: `conv-${i === 0 ? 26 : 44}`,
        conversation,
        observation: { session_1_observation, session_2_observation, session_3_observation },
        qa,
      };
    });
    writeFileSync(join(w.root, 'locomo10.json'), JSON.stringify(nested));
    const fromJson: Json = JSON.parse(
      (await w.cli(['eval', 'locomo', '--data', join(w.root, 'locomo10.json'), '--json'])).stdout,
    );
    // The combined form names conversations by their sample_id; the split is the same.
    expect(fromJson.splits).toEqual({ dev: ['conv-26'], heldout: ['conv-44'] });
    expect({ ...strip(fromJson), splits: null }).toEqual({ ...strip(fromZip), splits: null });
    const table = await w.cli(['eval', 'locomo', '--data', w.zipPath, '--baseline', 'bm25']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/R@5/);
    expect(table.stdout).toMatch(/R@50/);
    expect(table.stdout).toMatch(/bm25/i);
    expect(table.stdout).toMatch(/engram/i);
  });

  it('is deterministic, and rejects bad flags and missing data with clear exits', async () => {
    const w = workspace();
    const a = join(w.root, 'a.jsonl');
    const b = join(w.root, 'b.jsonl');
    expect((await w.cli(['eval', 'locomo', '--data', w.zipPath, '--dump', a])).code).toBe(0);
    expect((await w.cli(['eval', 'locomo', '--data', w.zipPath, '--dump', b])).code).toBe(0);
    expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
    expect(readFileSync(a, 'utf8').trim().split('\n')[0]).toMatch(/"ranked":\["D/);
    const badK = await w.cli(['eval', 'locomo', '--data', w.zipPath, '--k', '5,x']);
    expect(badK.code).toBe(2);
    expect(badK.stderr).toMatch(/--k/);
    expect((await w.cli(['eval', 'locomo', '--data', w.zipPath, '--baseline', 'dpr'])).code).toBe(
      2,
    );
    const missing = await w.cli(['eval', 'locomo', '--data', join(w.root, 'nope.zip')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/nope\.zip/);
  });

  it('reports each conversation, the cut-off per category over the questions R@k scores, and checks the targets', async () => {
    const w = workspace();
    const run = await w.cli(['eval', 'locomo', '--data', w.zipPath, '--json', '--check']);
    expect(run.code, run.stderr).toBe(0);
    const report: Json = JSON.parse(run.stdout);
    // Each conversation on its own: here one per split, so each equals its split.
    const conversations = Object.entries<Json>(report.rankers.engram.conversations);
    expect(conversations.map(([sample]) => sample)).toEqual(['26', '44']);
    expect(conversations[0]![1]).toEqual(report.rankers.engram.dev.overall);
    expect(conversations[1]![1]).toEqual(report.rankers.engram.heldout.overall);
    const { cutoff } = report;
    expect(cutoff.maxSelected).toBe(5);
    // The question without an evidence id is counted but, as in R@k, left out of the shares.
    expect(cutoff.all.questions).toBe(report.questions);
    expect(cutoff.all.scored).toBe(report.rankers.engram.all.overall.scored);
    for (const [c, cell] of Object.entries<Json>(cutoff.categories)) {
      expect(cell.scored).toBe(report.rankers.engram.all.categories[c].scored);
      expect(cell.selected).toBeLessThanOrEqual(5 * cell.scored);
      expect(cell.nothingShare).toBe(Math.round((1000 * cell.nothing) / cell.scored) / 10);
    }
    const unmeasured = await w.cli([
      'eval',
      'locomo',
      '--data',
      w.zipPath,
      '--k',
      '1,5',
      '--check',
    ]);
    expect(unmeasured.code).toBe(2);
    expect(unmeasured.stderr).toMatch(/--check needs --k to include 10/);
  });

  it('takes its data from ENGRAM_LOCOMO_DATA, and with no data says where to get it (exit 3)', async () => {
    const w = workspace();
    const fromEnv = await w.cli(['eval', 'locomo', '--json'], { ENGRAM_LOCOMO_DATA: w.zipPath });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(JSON.parse(fromEnv.stdout).conversations).toBe(2);
    const none = await w.cli(['eval', 'locomo']);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/--data/);
    expect(none.stderr).toMatch(/ENGRAM_LOCOMO_DATA/);
    expect(none.stderr).toMatch(/locomo10\.json/);
  });
});
