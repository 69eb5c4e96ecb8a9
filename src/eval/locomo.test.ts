import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEngramError } from '../util/errors.js';
import { FIXTURE_CONVERSATION, fixtureDir, fixtureZip } from './__fixtures__/locomo.js';
import { conversationKey, loadLocomo, splitOf } from './locomo.js';
import { readZipEntries } from './zip.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'engram-locomo-load-'));
}

describe('readZipEntries', () => {
  it('reads stored and deflated members and skips directories', () => {
    const entries = readZipEntries(fixtureZip(['26', '44']));
    expect(entries.map((e) => e.name)).toEqual([
      'data/multimodal_dialog/locomo10_v2/26.json',
      'data/multimodal_dialog/locomo10_v2/44.json',
    ]);
    for (const e of entries) expect(JSON.parse(e.read().toString())).toEqual(FIXTURE_CONVERSATION);
  });

  it('rejects something that is not a zip', () => {
    expect(() => readZipEntries(Buffer.from('not a zip archive at all, just text'))).toThrow(
      /not a readable zip/,
    );
  });
});

describe('loadLocomo', () => {
  it('reads the same conversations from a zip, a directory holding it, and unpacked JSON', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'locomo10.zip'), fixtureZip(['44', '26']));
    const fromZip = loadLocomo(join(dir, 'locomo10.zip'));
    expect(fromZip.map((c) => c.sample)).toEqual(['26', '44']);
    expect(loadLocomo(dir)).toEqual(fromZip);
    expect(loadLocomo(fixtureDir(['44', '26']))).toEqual(fromZip);
    expect(fromZip[0]!.observations).toHaveLength(5);
    expect(fromZip[0]!.questions).toHaveLength(7);
  });

  it('reads a directory holding the release zip under another name', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'locomo-download.zip'), fixtureZip(['44', '26']));
    expect(loadLocomo(dir).map((c) => c.sample)).toEqual(['26', '44']);
  });

  it('accepts the combined locomo10.json form with sample ids', () => {
    const dir = tempDir();
    const { qa, session_1_observation, session_2_observation, ...conversation } =
      FIXTURE_CONVERSATION;
    const combined = [
      {
        sample_id: 'conv-30',
        conversation,
        observation: { session_1_observation, session_2_observation },
        qa,
      },
    ];
    writeFileSync(join(dir, 'locomo10.json'), JSON.stringify(combined));
    const [c] = loadLocomo(join(dir, 'locomo10.json'));
    expect(c!.sample).toBe('conv-30');
    expect(c!.observations).toHaveLength(5);
    expect(splitOf(c!.sample)).toBe('dev');
  });

  it('fails clearly on a missing path and on a directory without conversations', () => {
    expect(() => loadLocomo(join(tempDir(), 'nope.zip'))).toThrow(/not found/);
    try {
      loadLocomo(tempDir());
      expect.unreachable();
    } catch (error) {
      expect(isEngramError(error, 'invalid_input')).toBe(true);
    }
  });

  it('splits development and held-out conversations as the issue fixes them', () => {
    expect(['26', '30', '41', '42', '43'].map(splitOf)).toEqual(Array(5).fill('dev'));
    expect(['44', '47', '48', '49', '50'].map(splitOf)).toEqual(Array(5).fill('heldout'));
  });

  it('gives the zip\'s "26" and the combined JSON\'s "conv-26" one key and one split', () => {
    expect(['26', 'conv-26', 'conv-44'].map(conversationKey)).toEqual(['26', '26', '44']);
    expect(['conv-26', 'conv-44'].map(splitOf)).toEqual(['dev', 'heldout']);
    expect(conversationKey('conv-conv-26')).toBe('conv-26'); // only the one prefix
  });
});
