import { mkdtempSync, readFileSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  forgetLogTails,
  lastRecalledAt,
  lastRecalledFrom,
  readLastRecalled,
  recalledKey,
} from './last-recalled.js';
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

  it('keeps a time per layer directory where the line names it, so same-named memories never share one', () => {
    const times = lastRecalledFrom([
      {
        at: '2026-10-01T00:00:00Z',
        files: ['a.md', 'b.md'],
        layers: ['project', 'user'],
        layerDirs: { project: '/repo-a/memory', user: '/home/u/.engram/user/memory' },
      },
      {
        at: '2026-10-03T00:00:00Z',
        files: ['b.md'],
        layers: ['project'],
        layerDirs: { project: '/repo-b/memory' },
      },
    ]);
    const at = (s: string) => Date.parse(s);
    expect(lastRecalledAt(times, '/repo-a/memory', 'a.md')).toBe(at('2026-10-01T00:00:00Z'));
    expect(lastRecalledAt(times, '/repo-b/memory', 'a.md')).toBeUndefined();
    expect(lastRecalledAt(times, '/home/u/.engram/user/memory/', 'b.md')).toBe(
      at('2026-10-01T00:00:00Z'),
    );
    expect(lastRecalledAt(times, '/repo-b/memory', 'b.md')).toBe(at('2026-10-03T00:00:00Z'));
  });

  it('keys a memory as its resolved path, whatever form its directory is named in', () => {
    for (const dir of [
      '/home/u/p/memory',
      '/home/u/p/memory/',
      '/home/u/p/./memory',
      '/',
      'rel/dir',
    ])
      for (const file of ['a.md', 'team/b.md'])
        expect(recalledKey(dir, file)).toBe(resolve(dir, file));
  });

  it('reads a line without layer directories by file name, for a memory of any directory', () => {
    const times = lastRecalledFrom([
      { at: '2026-10-01T00:00:00Z', files: ['a.md'], layers: ['user'] },
      {
        at: '2026-10-05T00:00:00Z',
        files: ['a.md'],
        layers: ['user'],
        layerDirs: { user: '/u' },
      },
    ]);
    expect(lastRecalledAt(times, '/anywhere', 'a.md')).toBe(Date.parse('2026-10-01T00:00:00Z'));
    expect(lastRecalledAt(times, '/u', 'a.md')).toBe(Date.parse('2026-10-05T00:00:00Z'));
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

  it('never changes a map it handed out when the log grows', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'engram-last-')), 'recall.jsonl');
    const line = (at: string, file: string) => `${JSON.stringify({ at, files: [file] })}\n`;
    await appendFile(log, line('2026-10-01T00:00:00Z', 'a.md'));
    const first = await readLastRecalled(log);
    expect(await readLastRecalled(log)).toEqual(first); // nothing appended: the same answer
    await appendFile(log, line('2026-10-02T00:00:00Z', 'a.md'));
    await appendFile(log, line('2026-10-02T00:00:00Z', 'b.md'));
    const second = await readLastRecalled(log);
    expect(first).toEqual(new Map([['a.md', Date.parse('2026-10-01T00:00:00Z')]]));
    expect(second.get('a.md')).toBe(Date.parse('2026-10-02T00:00:00Z'));
    expect(second.has('b.md')).toBe(true);
  });

  it('lets a reference recalled lately outrank an equal one idle for months', () => {
    const ref = (file: string) => ({
      file,
      type: 'reference' as const,
      description: 'grafana latency dashboard for the api',
      mtimeMs: NOW - 200 * DAY,
    });
    const memories = [ref('idle.md'), ref('used.md')];
    // The order of the two (the cut-off would keep only the first: the second adds nothing).
    const ranked = rankOffline('grafana latency dashboard', memories, {
      nowMs: NOW,
      requireOverlap: false,
      lastRecalled: new Map([['used.md', NOW - 2 * DAY]]),
    });
    expect(ranked.map((r) => r.file)).toEqual(['used.md', 'idle.md']);
  });

  it('gives a long-running host the same map from its kept tail as a fresh read, whatever the log went through', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'engram-last-')), 'recall.jsonl');
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const line = (i: number) =>
      JSON.stringify({
        at: new Date(NOW - Math.floor(random() * 90) * DAY).toISOString(),
        files: [`m${Math.floor(random() * 12)}.md`, `m${i % 5}.md`],
      });
    // What a reader of the tail must find: the last maxBytes, the cut moved back to a multiple of
    // a quarter of maxBytes (so it moves once per quarter window), less a first line it split.
    const fromTail = (maxBytes: number) => {
      const bytes = readFileSync(log);
      const quarter = Math.floor(maxBytes / 4);
      const start = Math.max(0, Math.floor((bytes.length - maxBytes) / quarter) * quarter);
      const lines = bytes.subarray(start).toString('utf8').split('\n');
      if (start > 0) lines.shift();
      const parsed: Array<{ at?: unknown; files?: unknown }> = [];
      for (const l of lines) {
        try {
          if (l.trim() !== '') parsed.push(JSON.parse(l));
        } catch {}
      }
      try {
        return lastRecalledFrom(parsed);
      } catch (error) {
        return error as Error;
      }
    };
    await writeFile(log, '');
    let seen = 0;
    for (let step = 0; step < 120; step++) {
      const r = random();
      if (r < 0.6) await appendFile(log, `${line(step)}\n`);
      else if (r < 0.7)
        await appendFile(log, line(step).slice(0, 20)); // a torn line, finished later
      else if (r < 0.75) await appendFile(log, '\n');
      else if (r < 0.8)
        await appendFile(log, 'null\n'); // a foreign line
      else if (r < 0.85)
        await writeFile(log, `${line(step)}\n${line(step + 1)}\n`); // rewritten
      else if (r < 0.9) await appendFile(log, `${'x'.repeat(300)}\n`);
      // Read it as a host would between turns, then as a fresh process would.
      const maxBytes = 700;
      const kept = await readLastRecalled(log, maxBytes).catch((e: unknown) => e);
      const expected = fromTail(maxBytes);
      if (expected instanceof Error) expect(kept).toBeInstanceOf(Error);
      else expect(kept).toEqual(expected);
      if (step % 10 === 0) forgetLogTails(); // now and then a fresh process
      if (expected instanceof Map) seen += expected.size;
    }
    expect(seen).toBeGreaterThan(0);
    // A window that starts exactly at a line: that line is dropped too, kept tail or not.
    const fixed = (i: number) =>
      `${JSON.stringify({ at: '2026-10-01T00:00:00Z', files: [`f${i}.md`] })}\n`;
    await writeFile(log, fixed(1) + fixed(2));
    const width = Buffer.byteLength(fixed(1));
    await readLastRecalled(log, 2 * width);
    await appendFile(log, fixed(3));
    expect([...(await readLastRecalled(log, 2 * width)).keys()]).toEqual(['f3.md']);
    expect(fromTail(2 * width)).toEqual(new Map([['f3.md', Date.parse('2026-10-01T00:00:00Z')]]));
  });
});
