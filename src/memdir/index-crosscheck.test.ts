import { describe, expect, it } from 'vitest';
import { crossCheckIndex } from './index-crosscheck.js';
import type { MemoryHeader } from './types.js';

const header = (file: string, status: 'active' | 'revoked' = 'active'): MemoryHeader => ({
  file,
  path: `/m/${file}`,
  mtimeMs: 0,
  description: 'd',
  type: 'user',
  status,
  hasFrontmatter: true,
  frontmatter: {},
});

describe('crossCheckIndex', () => {
  it('counts the same orphans and dangling lines by both readers on a plain index', () => {
    const memories = [header('a.md'), header('orphan.md'), header('old.md', 'revoked')];
    const check = crossCheckIndex(memories, '- [A](a.md) — x\n- [Gone](gone.md) — y\n');
    expect(check.byIndexParser).toEqual({ orphans: ['orphan.md'], dangling: ['gone.md'] });
    expect(check.byLinkScan).toEqual({ orphans: ['orphan.md'], dangling: ['gone.md'] });
    expect(check.agree).toBe(true);
  });

  it('disagrees, instead of miscounting, when a link sits where the line scanner does not look', () => {
    // A link inside a paragraph, not a list line: the markdown parser sees it, the scanner may not.
    const text = 'See [A](a.md) and [Gone](gone.md) for details.\n';
    const check = crossCheckIndex([header('a.md')], text);
    expect(check.byLinkScan).toEqual({ orphans: [], dangling: ['gone.md'] });
    expect(check.agree).toBe(
      check.byIndexParser.orphans.length === 0 && check.byIndexParser.dangling.length === 1,
    );
  });
});
