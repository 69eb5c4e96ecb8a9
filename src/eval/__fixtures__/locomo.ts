/**
 * A tiny LoCoMo-shaped conversation written for the tests (not taken from the benchmark), with the
 * release's messy ids: zero-padded turns, lists joined by commas or semicolons, a missing session
 * number, an empty evidence list, and observations drawn from several turns.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';

export const FIXTURE_CONVERSATION = {
  speaker_a: 'Ana',
  speaker_b: 'Ben',
  session_1_date_time: '1:00 pm on 1 May, 2023',
  session_1: [{ speaker: 'Ana', dia_id: 'D1:1', text: 'I love green tea.' }],
  session_1_observation: {
    Ana: [
      ['Ana likes green tea.', 'D1:1'],
      ['Ana has a cat named Tom.', 'D1:3'],
    ],
    Ben: [['Ben plays chess every weekend.', 'D1:2']],
  },
  session_2_observation: {
    Ana: [['Ana moved to Oslo for a new job.', ['D2:1', 'D2:3']]],
    Ben: [['Ben adopted a rescue dog.', 'D2:2, D2:4']],
  },
  qa: [
    { question: 'What pet does Ana have?', answer: 'a cat', evidence: ['D1:3'], category: 4 },
    { question: 'When did Ben visit Rome?', answer: 'never', evidence: ['D30:05'], category: 2 },
    { question: 'What do they drink and own?', answer: 'x', evidence: ['D1:1; D2:2'], category: 1 },
    { question: 'Where did Ana move?', answer: 'Oslo', evidence: ['D2:3', 'D2:01'], category: 1 },
    { question: 'Would Ana like Norway?', answer: 'yes', evidence: [], category: 3 },
    { question: 'What game does Ana play?', adversarial_answer: 'chess', evidence: ['D1:2'], category: 5 },
    { question: 'When did Ana get Tom?', answer: 'x', evidence: ['D:1:3', 'D9:9'], category: 2 },
  ],
};

/** Writes the fixture as `<dir>/<sample>.json` for each sample name and returns the directory. */
export function fixtureDir(samples: readonly string[] = ['26']): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-locomo-'));
  for (const s of samples) writeFileSync(join(dir, `${s}.json`), JSON.stringify(FIXTURE_CONVERSATION));
  return dir;
}

/** A zip archive (one deflated member, one stored) laid out like the release. */
export function fixtureZip(samples: readonly string[] = ['26', '44']): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const members: [string, Buffer, boolean][] = [
    ['data/multimodal_dialog/locomo10_v2/', Buffer.alloc(0), false],
    ...samples.map((s, i): [string, Buffer, boolean] => [
      `data/multimodal_dialog/locomo10_v2/${s}.json`,
      Buffer.from(JSON.stringify(FIXTURE_CONVERSATION)),
      i % 2 === 0,
    ]),
  ];
  for (const [name, data, deflate] of members) {
    const packed = deflate ? deflateRawSync(data) : data;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + packed.length;
  }
  const centralDir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(centralDir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralDir, end]);
}
