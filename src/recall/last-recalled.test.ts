import { mkdtempSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastRecalledFrom, readLastRecalled } from './last-recalled.js';
import { rankOffline } from './ranker-cache.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 1);

describe('last recalled, from the recall log', () => {
  it('keeps the newest time each file was injected', () => {
    const map = lastRecalledFrom([
      { at: '2026-10-01T00:00:00Z', files: ['a.md', 'b.md'] },
      { at: '2026-10-05T00:00:00Z', files: ['a.md'] },
      { at: 'not a date', files: ['c.md'] },
      { files: ['d.md'] },
    ]);
    expect(map).toEqual(
      new Map([
        ['a.md', Date.parse('2026-10-05T00:00:00Z')],
        ['b.md', Date.parse('2026-10-01T00:00:00Z')],
      ]),
    );
  });

  it('reads only the tail of a long log, and a missing log is empty', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'engram-last-')), 'recall.jsonl');
    expect(await readLastRecalled(log)).toEqual(new Map());
    await appendFile(log, `${JSON.stringify({ at: '2026-01-01T00:00:00Z', files: ['old.md'] })}\n`);
    await appendFile(log, `${'x'.repeat(2000)}\n`);
    await appendFile(log, `${JSON.stringify({ at: '2026-10-01T00:00:00Z', files: ['new.md'] })}\n`);
    expect([...(await readLastRecalled(log, 1000)).keys()]).toEqual(['new.md']);
    expect([...(await readLastRecalled(log)).keys()].sort()).toEqual(['new.md', 'old.md']);
  });

  it('lets a reference recalled lately outrank an equal one idle for months', () => {
    const ref = (file: string) => ({
      file,
      type: 'reference' as const,
      description: 'grafana latency dashboard for the api',
      mtimeMs: NOW - 200 * DAY,
    });
    const memories = [ref('idle.md'), ref('used.md')];
    const ranked = rankOffline('grafana latency dashboard', memories, {
      nowMs: NOW,
      lastRecalled: new Map([['used.md', NOW - 2 * DAY]]),
    });
    expect(ranked.map((r) => r.file)).toEqual(['used.md', 'idle.md']);
  });
});
