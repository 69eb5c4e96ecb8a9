// Shared setup for the LoCoMo eval and ranker tests. Importing it registers this setup's vitest hooks for the importing file.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { beforeAll } from 'vitest';

/**
 * Black-box tests of LoCoMo evidence recall, from the issue text alone: the built CLI as a
 * child process over a tiny LoCoMo-shaped archive written here (invented people and facts, never
 * the benchmark's data), with the metric checked against values computed by hand.
 */

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist', 'cli', 'main.js');

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
});

// Conversation 26 (a dev conversation). Each question's words point at one observation, so the
// top-1 is unambiguous; q2 asks about two observations, one evidence id each.
export const CONV_26 = {
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
export const CONV_44 = {
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
export function zip(members: Record<string, string>): Buffer {
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

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function workspace() {
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
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> =>
    new Promise((resolve) => {
      const childEnv = { ...env, ...extraEnv };
      execFile('node', [BIN, ...args], { env: childEnv, cwd: root }, (error, stdout, stderr) => {
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
export type Json = any;

/** The paper's metric from a dump, as anyone would recompute it: mean covered share, in %. */

export function recomputed(lines: Json[], k: number): number {
  const scored = lines.filter((l) => l.evidence.length > 0);
  let sum = 0;
  for (const l of scored) {
    const seen = new Set(l.ranked.slice(0, k).flatMap((r: string) => r.split(',')));
    sum += l.evidence.filter((id: string) => seen.has(id)).length / l.evidence.length;
  }
  return Math.round((10_000 * sum) / scored.length) / 100;
}

export function strip(report: Json): Json {
  const { data: _data, ...rest } = report;
  const rankers: Json = {};
  for (const [name, r] of Object.entries(rest.rankers as Json)) {
    const { msPerQuery: _ms, ...scores } = r as Json;
    rankers[name] = scores;
  }
  return { ...rest, rankers };
}
