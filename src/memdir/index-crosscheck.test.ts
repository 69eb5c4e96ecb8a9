import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crossCheckIndex, markdownLinkTargets } from './index-crosscheck.js';
import { scanMemories } from './scan.js';

const memory = (status = '') =>
  `---\nname: n\ndescription: d\ntype: user\n${status ? `status: ${status}\n` : ''}---\nbody\n`;

describe('markdownLinkTargets', () => {
  it('reads inline, angle-bracket, titled and reference links, and skips external ones', async () => {
    const text = [
      '- [A](a.md) — inline',
      '- [B](<b c.md>) — angle brackets',
      '- [C](./c.md "title") — with a title',
      '- [D][d] — reference',
      '- [Web](https://example.com/x.md)',
      '',
      '[d]: d%20e.md',
    ].join('\n');
    expect(await markdownLinkTargets(text)).toEqual(['a.md', 'b c.md', 'c.md', 'd e.md']);
  });
});

describe('crossCheckIndex', () => {
  it('counts the same orphans and dangling lines by both methods on a plain index', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-xcheck-'));
    writeFileSync(join(dir, 'a.md'), memory());
    writeFileSync(join(dir, 'orphan.md'), memory());
    writeFileSync(join(dir, 'old.md'), memory('revoked'));
    const index = '- [A](a.md) — x\n- [Gone](gone.md) — y\n';
    writeFileSync(join(dir, 'MEMORY.md'), index);
    const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
    const check = await crossCheckIndex(dir, scan.memories, index);
    expect(check.byIndexParser).toEqual({ orphans: ['orphan.md'], dangling: ['gone.md'] });
    expect(check.byLinkScan).toEqual({ orphans: ['orphan.md'], dangling: ['gone.md'] });
    expect(check.agree).toBe(true);
  });

  it('disagrees, instead of miscounting, on a link form one method does not read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-xcheck-'));
    writeFileSync(join(dir, 'a.md'), memory());
    const index = '- [A][a]\n\n[a]: a.md\n';
    const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
    const check = await crossCheckIndex(dir, scan.memories, index);
    expect(check.byLinkScan.orphans).toEqual([]);
    // The line parser may learn this form; until then the counts differ and say so.
    expect(check.agree).toBe(check.byIndexParser.orphans.length === 0);
  });
});
