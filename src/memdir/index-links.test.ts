import { describe, expect, it } from 'vitest';
import { indexTargetsByMarkdown, normalizeIndexTarget, parseIndexEntries } from './index-links.js';

describe('parseIndexEntries', () => {
  it('finds a pointer wherever the link sits on its line', () => {
    const text = [
      '# Title',
      '1. [one](mem1.md) — x',
      '- **[two](mem2.md)** — y',
      '- [three](mem3.md "title") — z',
      '| [four](<my four.md>) | [five](./five.md) |',
      '  - nested: [six](sub/six.md#part)',
      '* [seven](a%20b.md)',
    ].join('\n');
    const entries = parseIndexEntries(text);
    expect(entries.map((e) => [e.file, e.line])).toEqual([
      ['mem1.md', 1],
      ['mem2.md', 2],
      ['mem3.md', 3],
      ['my four.md', 4],
      ['five.md', 4],
      ['sub/six.md', 5],
      ['a b.md', 6],
    ]);
    expect(entries[0]).toMatchObject({ title: 'one', hook: 'x', siblings: 0 });
    expect(entries[1]).toMatchObject({ title: 'two', hook: 'y' });
    expect(entries[3]!.siblings).toBe(1);
  });

  it('ignores external links, images, code, links out of the directory and the index itself', () => {
    const text = [
      '- [web](https://example.com/a.md)',
      '- ![pic](diagram.md)',
      '- `[code](code.md)`',
      '```',
      '- [fenced](fenced.md)',
      '```',
      '- [out](../outside.md)',
      '- [abs](/etc/x.md)',
      '- [self](MEMORY.md)',
      '- [txt](notes.txt)',
    ].join('\n');
    expect(parseIndexEntries(text)).toEqual([]);
    expect([...indexTargetsByMarkdown(text)]).toEqual([]);
  });

  it('normalizes targets inside the directory', () => {
    expect(normalizeIndexTarget('sub/../mem3.md')).toBe('mem3.md');
    expect(normalizeIndexTarget('<a b.md>')).toBe('a b.md');
    expect(normalizeIndexTarget('./x/./y.md')).toBe('x/y.md');
    expect(normalizeIndexTarget('sub/../../up.md')).toBeUndefined();
  });

  it('agrees with the markdown parser on every form', () => {
    const text =
      '## H\n1. [a](a.md)\n- **[b](b.md)**\n- [c](c.md "t")\n\n| x |\n| - |\n| [d](<d d.md>) |\n\n- e: [l](s/../e.md)\n';
    expect(new Set(parseIndexEntries(text).map((e) => e.file))).toEqual(
      indexTargetsByMarkdown(text),
    );
  });

  it('reads a reference-style link through its definition, as the markdown parser does', () => {
    const text = [
      '## Index',
      '- [one][r1] — the first',
      '- [Two][] — collapsed',
      '- [three] — shortcut',
      '- [unused label] is just text',
      '',
      '[r1]: a.md',
      '[two]: <b b.md> "title"',
      '  [Three]: ./c.md',
      '[never-used]: d.md',
    ].join('\n');
    const files = parseIndexEntries(text).map((e) => [e.file, e.line]);
    expect(files).toEqual([
      ['a.md', 6],
      ['b b.md', 7],
      ['c.md', 8],
    ]);
    expect(new Set(parseIndexEntries(text).map((e) => e.file))).toEqual(
      indexTargetsByMarkdown(text),
    );
  });
});
