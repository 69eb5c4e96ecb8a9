import { describe, expect, it } from 'vitest';
import { NOW, seedMemories, tempMemoryDir } from './__fixtures__/memdir.js';
import { recall } from './recall.js';
import type { MemoryVerdict, MemoryVerifier } from './verification.js';

const NOTE = 'Claims checked against the project when recalled: 1 of 1 checked, 1 failed.';

function verifier(answer: () => Promise<ReadonlyMap<string, MemoryVerdict>>, waitMs: number) {
  const calls: string[][] = [];
  const v: MemoryVerifier = {
    waitMs,
    verify(requests) {
      calls.push(requests.map((r) => r.file));
      return answer();
    },
  };
  return { v, calls };
}

const contradicted = (file: string) =>
  new Map([[file, { total: 1, checked: 1, failed: 1, note: NOTE }]]);

async function dir() {
  const d = tempMemoryDir();
  await seedMemories(d, [
    { file: 'kiln.md', description: 'kiln firing schedule for stoneware glaze' },
    { file: 'clay.md', description: 'clay recycling bucket routine' },
  ]);
  return d;
}

describe('recall with a claim verifier', () => {
  it('freezes a ready verdict into the header and counts the contradicted memory', async () => {
    const d = await dir();
    const { v, calls } = verifier(async () => contradicted('kiln.md'), 1_000);
    const r = await recall({ dir: d, query: 'kiln firing schedule', now: NOW, verifier: v });
    expect(calls).toEqual([['kiln.md']]);
    expect(r.selected[0]!.header.startsWith(`${NOTE}\n\n`)).toBe(true);
    expect(r.text).toContain(NOTE);
    expect(r.selected[0]).toMatchObject({ contradicted: true, claims: { total: 1, failed: 1 } });
    expect(r.shape).toMatchObject({
      files: ['kiln.md'],
      verifiedSelected: 1,
      contradictedSelected: 1,
      claimStaleHitRatio: 1,
    });
  });

  it('leaves the header exactly as without verification when the verdict comes too late', async () => {
    const d = await dir();
    const plain = await recall({ dir: d, query: 'kiln firing schedule', now: NOW });
    const never = verifier(() => new Promise(() => undefined), 30);
    const late = await recall({
      dir: d,
      query: 'kiln firing schedule',
      now: NOW,
      verifier: never.v,
    });
    expect(late.text).toBe(plain.text);
    expect(late.selected[0]!.header).toBe(plain.selected[0]!.header);
    expect(late.shape).toMatchObject({
      verifiedSelected: 0,
      contradictedSelected: 0,
      claimStaleHitRatio: 0,
    });
    const failing = verifier(() => Promise.reject(new Error('git exploded')), 1_000);
    const broken = await recall({
      dir: d,
      query: 'kiln firing schedule',
      now: NOW,
      verifier: failing.v,
    });
    expect(broken.text).toBe(plain.text);
  });

  it('uses a verdict that is ready at once even when it may not wait at all', async () => {
    const d = await dir();
    const { v } = verifier(async () => contradicted('kiln.md'), 0);
    const r = await recall({ dir: d, query: 'kiln firing schedule', now: NOW, verifier: v });
    expect(r.selected[0]!.header).toContain(NOTE);
  });

  it('records no ratio when nothing is selected', async () => {
    const d = await dir();
    const { v, calls } = verifier(async () => new Map(), 1_000);
    const r = await recall({ dir: d, query: 'quarterly tax filing', now: NOW, verifier: v });
    expect(r.selected).toEqual([]);
    expect(calls).toEqual([]);
    expect(r.shape.claimStaleHitRatio).toBeNull();
  });
});
