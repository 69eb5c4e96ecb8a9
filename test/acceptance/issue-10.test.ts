/**
 * Acceptance for issue 10 (LoCoMo evidence recall), from the issue text alone: the built CLI as a
 * child process over a tiny LoCoMo-shaped archive written here (invented people and facts, never
 * the benchmark's data), with the metric checked against values computed by hand.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { crc32, deflateRawSync } from 'node:zlib';
import { createOfflineRanker, rankOffline } from 'engram/recall';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'cli', 'main.js');

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
});

// Conversation 26 (a dev conversation). Each question's words point at one observation, so the
// top-1 is unambiguous; q2 asks about two observations, one evidence id each.
const CONV_26 = {
  speaker_a: 'Mira',
  speaker_b: 'Tomas',
  session_1_date_time: '9:00 am on 3 June, 2022',
  session_1: [
    { speaker: 'Mira', dia_id: 'D1:2', text: 'I adopted a parrot!' },
    { speaker: 'Mira', dia_id: 'D1:5', text: 'I keep the lighthouse now.' },
  ],
  session_2_date_time: '6:00 pm on 9 June, 2022',
  session_2: [{ speaker: 'Tomas', dia_id: 'D2:3', text: 'Finished the Lisbon marathon.' }],
  session_1_observation: {
    Mira: [
      ['Mira adopted a grey parrot named Pico.', 'D1:2'],
      ['Mira works as a lighthouse keeper on the Norwegian coast.', 'D1:5'],
    ],
  },
  session_2_observation: {
    Tomas: [
      ['Tomas ran a marathon in Lisbon in March.', 'D2:3'],
      ['Tomas bakes cinnamon buns every Sunday morning.', 'D2:07'],
    ],
  },
  qa: [
    {
      question: 'What kind of bird did Mira adopt?',
      answer: 'a parrot',
      evidence: ['D1:02'],
      category: 4,
    },
    {
      question: 'Which city hosted the marathon Tomas ran, and what does he bake?',
      answer: 'Lisbon; cinnamon buns',
      evidence: ['D2:3, D2:7'],
      category: 1,
    },
    {
      question: 'Where is the lighthouse Mira keeps?',
      answer: 'Norway',
      evidence: ['D1:5', 'D9:9'],
      category: 4,
    },
    {
      question: 'Does Mira keep a lighthouse in Sweden?',
      adversarial_answer: 'yes',
      evidence: ['D1:5'],
      category: 5,
    },
  ],
};

// Conversation 44 (held out): a semicolon-joined observation id, a "D:3:10" id, a space-joined
// evidence list and a question without any id (counted, not scored).
const CONV_44 = {
  speaker_a: 'Ravi',
  speaker_b: 'Lena',
  session_1_date_time: '2:00 pm on 1 March, 2023',
  session_1: [{ speaker: 'Ravi', dia_id: 'D1:1', text: 'Cello rehearsal tonight.' }],
  session_1_observation: {
    Ravi: [
      ['Ravi plays the cello in a community orchestra.', 'D1:1'],
      ["Ravi's sister Noor lives in Montreal.", 'D1:3; D1:4'],
    ],
  },
  session_3_observation: {
    Lena: [['Lena started learning Japanese calligraphy.', 'D3:10']],
  },
  qa: [
    {
      question: 'What instrument is played in the orchestra?',
      answer: 'cello',
      evidence: ['D1:01'],
      category: 4,
    },
    {
      question: 'When did Lena begin calligraphy?',
      answer: 'March',
      evidence: ['D:3:10'],
      category: 2,
    },
    {
      question: 'In which city does Noor, the sister, live?',
      answer: 'Montreal',
      evidence: ['D1:3', 'D2:8'],
      category: 3,
    },
    {
      question: 'Where does the sister Noor live now?',
      answer: 'Montreal',
      evidence: ['D1:4 D1:3'],
      category: 5,
    },
    { question: 'What is the weather like?', answer: 'unknown', evidence: [], category: 1 },
  ],
};

/** A zip of deflated members, as the release ships (written here; no zip tool needed). */
function zip(members: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(members)) {
    const raw = Buffer.from(text);
    const data = deflateRawSync(raw);
    const nameBuf = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(raw), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    centrals.push(central, nameBuf);
    offset += 30 + nameBuf.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(members).length, 8);
  end.writeUInt16LE(Object.keys(members).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'engram-acc10-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ENGRAM_HOME: join(root, 'home', '.engram'),
    ENGRAM_MANAGED_DIR: join(root, 'managed'),
  };
  const zipPath = join(root, 'tiny-locomo.zip');
  writeFileSync(
    zipPath,
    zip({
      'data/multimodal_dialog/locomo10_v2/44.json': JSON.stringify(CONV_44),
      'data/multimodal_dialog/locomo10_v2/26.json': JSON.stringify(CONV_26),
    }),
  );
  const cli = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile('node', [BIN, ...args], { env, cwd: root }, (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        });
      });
    });
  return { root, zipPath, cli };
}

// biome-ignore lint/suspicious/noExplicitAny: the report is read as an outsider would.
type Json = any;

describe('issue 10: engram eval locomo on a tiny synthetic release', () => {
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
});

/** The paper's metric from a dump, as anyone would recompute it: mean covered share, in %. */
describe('issue 10: the offline ranker stays fast, deterministic and allowed to say nothing', () => {
  const topics = ['kayak', 'violin', 'sourdough', 'chess', 'orchid', 'glacier', 'tango', 'falcon'];
  const memories = Array.from({ length: 300 }, (_, i) => ({
    file: `fact-${String(i).padStart(3, '0')}.md`,
    type: 'user' as const,
    description: `Fact ${i}: the ${topics[i % 8]} club met near the ${topics[(i * 3) % 8]} shop in week ${i % 52}`,
    body: `Notes on the ${topics[(i * 5) % 8]} outing number ${i}.`,
    mtimeMs: Date.UTC(2030, 0, 1),
  }));
  const nowMs = Date.UTC(2030, 0, 2);

  it('ranks 300 memories in under 1 ms per query once indexed', () => {
    const queries = topics.map((t) => `when did the ${t} club meet near the shop`);
    rankOffline(queries[0]!, memories, { nowMs }); // builds the index
    const started = performance.now();
    for (let i = 0; i < 200; i++) rankOffline(queries[i % queries.length]!, memories, { nowMs });
    expect((performance.now() - started) / 200).toBeLessThan(1);
    const ranker = createOfflineRanker(memories);
    expect(rankOffline('violin club week 7', memories, { nowMs })).toEqual(
      ranker.rank('violin club week 7', { nowMs }),
    );
  });

  it('keeps zero answers for unrelated questions and at most five for real recall', () => {
    expect(rankOffline('what is the boiling point of mercury', memories, { nowMs })).toEqual([]);
    expect(rankOffline('kayak club', memories, { nowMs })).toHaveLength(5);
    const all = rankOffline('kayak club', memories, {
      nowMs,
      limit: Number.POSITIVE_INFINITY,
      requireOverlap: false,
    });
    expect(all).toHaveLength(300);
  });
});

function recomputed(lines: Json[], k: number): number {
  const scored = lines.filter((l) => l.evidence.length > 0);
  let sum = 0;
  for (const l of scored) {
    const seen = new Set(l.ranked.slice(0, k).flatMap((r: string) => r.split(',')));
    sum += l.evidence.filter((id: string) => seen.has(id)).length / l.evidence.length;
  }
  return Math.round((10_000 * sum) / scored.length) / 100;
}

function strip(report: Json): Json {
  const { data: _data, ...rest } = report;
  const rankers: Json = {};
  for (const [name, r] of Object.entries(rest.rankers as Json)) {
    const { msPerQuery: _ms, ...scores } = r as Json;
    rankers[name] = scores;
  }
  return { ...rest, rankers };
}
