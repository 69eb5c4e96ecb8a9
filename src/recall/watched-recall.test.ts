import { mkdtempSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearHeaderCaches, TIMESTAMP_GRANULARITY_MS } from '../memdir/header-cache.js';
import { closeTreeWatches, watchableFilesystem } from '../memdir/tree-watch.js';
import { recall } from './recall.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const DAY = 86_400_000;
const QUERY = 'why does the kubelet keep evicting pods';

function note(i: number, rule: string): string {
  const topic =
    i % 3 === 0 ? 'kubelet eviction pods memory pressure' : 'queue worker retry timeout';
  return `---\nname: note ${i}\ndescription: ${topic} note ${i}\ntype: feedback\n---\n${rule}\n`;
}

/** Recall with no cache and no watch: what every warm turn must inject, byte for byte. */
async function fresh(dir: string) {
  closeTreeWatches();
  clearHeaderCaches();
  const result = await recall({ dir, query: QUERY, now: NOW, persistedCache: false });
  closeTreeWatches();
  clearHeaderCaches();
  return result.text;
}

describe.skipIf(!watchableFilesystem(tmpdir()))('recall in a long-running host, watched', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-watched-recall-'));
    for (let i = 0; i < 30; i++) {
      writeFileSync(join(dir, `m-${i}.md`), note(i, `Rule ${i}: drain the node first.`));
      utimesSync(join(dir, `m-${i}.md`), (NOW - i * DAY) / 1000, (NOW - i * DAY) / 1000);
    }
    await sleep(TIMESTAMP_GRANULARITY_MS + 200); // old enough to be trusted by stat
  });
  afterAll(() => {
    closeTreeWatches();
    clearHeaderCaches();
  });

  it('injects the same bytes on quiet turns as a fresh recall, and a changed body at the next turn', async () => {
    const host = () => recall({ dir, query: QUERY, now: NOW });
    const expected = await fresh(dir);
    expect(expected).toContain('Rule 0: drain the node first.');
    for (let t = 0; t < 4; t++) expect((await host()).text).toBe(expected);
    // Let the files age again after each edit, so the turns before the next edit are quiet ones.
    const settle = () => sleep(TIMESTAMP_GRANULARITY_MS + 200);
    const chosen = join(dir, 'm-0.md');
    // The body only (same size, same header): only a read of the file itself can tell.
    writeFileSync(chosen, note(0, 'Rule 0: cordon the node 1st.'));
    const edited = (await host()).text;
    expect(edited).toContain('Rule 0: cordon the node 1st.');
    await settle();
    for (let t = 0; t < 3; t++) expect((await host()).text).toBe(edited);
    // Replaced by a rename, as editors save: seen at the next turn too.
    writeFileSync(join(dir, 'm-0.tmp'), note(0, 'Rule 0: evict nothing, ask.'));
    renameSync(join(dir, 'm-0.tmp'), chosen);
    const renamed = (await host()).text;
    expect(renamed).toContain('Rule 0: evict nothing, ask.');
    await settle();
    for (let t = 0; t < 3; t++) expect((await host()).text).toBe(renamed);
    expect(renamed).toBe(await fresh(dir));
    expect(readFileSync(chosen, 'utf8')).toContain('evict nothing');
  });
});
