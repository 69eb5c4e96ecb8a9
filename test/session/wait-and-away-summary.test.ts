import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import type { Message } from 'engram/llm';
import { awaySummary, waitForNotes } from 'engram/session';
import { scriptedModel, startScriptedModelServer } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { root, text } from './support.js';

describe('waitForNotes', () => {
  function fakeClock(start: number) {
    let now = start;
    return {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
    };
  }
  const record = async (age: number, clock: { now: () => number }) => {
    const dir = await mkdtemp(join(root, 'wait-'));
    const file = join(dir, 'update-running.json');
    const host = (await import('node:os')).hostname();
    writeFileSync(file, JSON.stringify({ startedAt: clock.now() - age, pid: process.pid, host }));
    return file;
  };

  it('an update running for 61 s: no wait at all', async () => {
    const clock = fakeClock(1_800_000_000_000);
    const result = await waitForNotes(await record(61_000, clock), { clock });
    expect(result.waitedMs).toBe(0);
  });

  it('an update running for 5 s that never ends: proceeds after at most 15 s', async () => {
    const clock = fakeClock(1_800_000_000_000);
    const result = await waitForNotes(await record(5_000, clock), { clock });
    expect(result.outcome).toBe('timeout');
    // Virtual time: the fake clock's sleeps add up to exactly the 15 s wait limit.
    expect(result.waitedMs).toBe(15_000);
  });
});

describe('awaySummary', () => {
  it('sends the notes and the recent conversation, and returns at most three sentences', async () => {
    const own = await startScriptedModelServer({
      steps: [
        {
          text: 'You are reconciling the March ledger. Batches 0-5 balance. Next, dump the suspense account. Then post the fix. Then rerun the report.',
        },
      ],
    });
    try {
      const history: Message[] = [];
      for (let i = 0; i < 40; i++)
        history.push(
          text(i % 2 ? 'assistant' : 'user', `turn number ${i} about account ${4400 + i}`),
        );
      const notes = '# Current State\n_What is happening now._\nSuspense account 4410 is next.\n';
      const summary = await awaySummary(history, notes, { model: scriptedModel(own) });
      const sentences = summary.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== '');
      expect(sentences.length).toBeGreaterThanOrEqual(1);
      expect(sentences.length).toBeLessThanOrEqual(3);
      const sent = own.requests[0]!.rawBody;
      expect(sent).toContain('Suspense account 4410 is next.');
      expect(sent).toContain('turn number 39 about account 4439');
      expect(sent).not.toContain('turn number 5 about account 4405');
    } finally {
      await own.close();
    }
  });
});
