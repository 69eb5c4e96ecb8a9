import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HEADER_CACHE_FILE } from '../../src/memdir/header-cache.js';

const ROOT = resolve(import.meta.dirname, '../..');
const RECALL = pathToFileURL(join(ROOT, 'dist/recall/index.js')).href;
const QUERY = 'why does the kubelet keep evicting pods';

/**
 * A fresh process running the built library: three turns, by `startRecall` (a host) or by
 * `recall` (a one-shot caller). Prints the texts and how many worker threads it started.
 */
function turns(dir: string, how: 'startRecall' | 'recall') {
  const script = `
    import { recall, startRecall } from ${JSON.stringify(RECALL)};
    let workers = 0;
    process.on('worker', () => workers++);
    const texts = [];
    for (const query of [${JSON.stringify(QUERY)}, 'how do we roll back a canary deploy', ${JSON.stringify(QUERY)}]) {
      const options = { dir: ${JSON.stringify(dir)}, query, now: ${Date.now()} };
      if (${JSON.stringify(how)} === 'recall') {
        const r = await recall(options);
        texts.push([r.text, r.complete]);
      } else {
        const handle = startRecall(options);
        await handle.done;
        const r = handle.poll();
        texts.push([r.text, r.complete]);
      }
    }
    process.stdout.write(JSON.stringify({ texts, workers }));
  `;
  const home = mkdtempSync(join(tmpdir(), 'engram-host-first-build-home-'));
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', HOME: home, ENGRAM_HOME: join(home, '.engram') },
    encoding: 'utf8',
  });
  expect(out.stderr).toBe('');
  return JSON.parse(out.stdout) as { texts: [string, boolean][]; workers: number };
}

describe("a host's first recall of a directory", () => {
  it('builds in a worker thread in a host, never in a one-shot caller, and injects the same bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-host-first-build-'));
    for (let i = 0; i < 120; i++) {
      const path = join(dir, `m-${i}.md`);
      const topic =
        i % 7 === 0 ? 'kubelet evicts pods under memory pressure' : `canary deploy ${i}`;
      writeFileSync(
        path,
        `---\nname: m ${i}\ndescription: ${topic}\ntype: project\n---\n${topic}.\n`,
      );
      utimesSync(path, Date.now() / 1000 - 3600, Date.now() / 1000 - 3600);
    }
    // The host first, with no cache file: its worker writes the file a one-shot caller then reads.
    const host = turns(dir, 'startRecall');
    expect(existsSync(join(dir, HEADER_CACHE_FILE))).toBe(true);
    const oneShot = turns(dir, 'recall');
    rmSync(join(dir, HEADER_CACHE_FILE));
    const fromScratch = turns(dir, 'recall');
    expect(fromScratch.texts).toEqual(oneShot.texts);
    expect(oneShot.workers).toBe(0);
    expect(host.workers).toBe(1);
    expect(host.texts).toEqual(oneShot.texts);
    expect(host.texts[0]![0]).toContain('kubelet');
  });
});
