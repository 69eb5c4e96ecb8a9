import { mkdtempSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headerFromHead, headerFromText, parseSimpleYaml } from './header.js';
import { scanMemories } from './scan.js';

const tempMemoryDir = () => mkdtempSync(join(tmpdir(), 'engram-header-'));

// Values chosen to hit every YAML corner the fast path must hand to the reference parser.
const tricky = fc.constantFrom(
  'true',
  'False',
  'null',
  '~',
  'yes',
  '12',
  '1e3',
  '0x1F',
  '.inf',
  "'quoted'",
  '"double"',
  'has: colon',
  'ends with colon:',
  'C# notes',
  'a # comment',
  '- item',
  '[a, b]',
  '{a: 1}',
  '&anchor',
  '*alias',
  '|',
  '>',
  '`code`',
  '@at',
  '%pct',
  '',
  ' ',
  'tab\there',
  'url http://x.y/z',
  'Ünïcödé ok',
  '中文描述 也可以',
  'x: y: z',
  'a, b [c] {d}',
);
const plain = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,.()/'"`-]{0,40}$/);
// '!' starts a YAML tag: the reference parser warns on stderr for unknown ones, so keep it out.
const value = fc.oneof(
  plain,
  tricky,
  fc.string({ maxLength: 20 }).filter((s) => !s.includes('!')),
);
const key = fc.oneof(
  fc.constantFrom('name', 'description', 'type', 'status', 'reason'),
  fc.stringMatching(/^[a-z_][a-z0-9_-]{0,8}$/),
  fc.constantFrom('Key With Space', '"quoted"', '- dash'),
);
const sep = fc.constantFrom(': ', ':  ', ':', ' : ', ':\t');
const line = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(key, sep, value).map(([k, s, v]) => `${k}${s}${v}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('  indented: x', '# comment', '', '- list', 'type: user  '),
  },
);
const chaotic = fc
  .tuple(
    fc.constantFrom('---', '---', '---', '--- ', '---\r', '\uFEFF---', 'no frontmatter'),
    fc.array(line, { maxLength: 35 }),
    fc.constantFrom('---', '--- ', ''),
    fc.string({ maxLength: 200 }),
  )
  .map(([open, lines, close, body]) => [open, ...lines, close, body].join('\n'));
// Mostly well-formed, as real memories are, with the odd tricky value or key mixed in.
const simpleLine = fc.oneof(
  { weight: 15, arbitrary: fc.tuple(key, plain).map(([k, v]) => `${k}: ${v}`) },
  { weight: 1, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`) },
);
const wellFormed = fc
  .tuple(fc.array(simpleLine, { maxLength: 6 }), fc.string({ maxLength: 100 }))
  .map(([lines, body]) => ['---', ...lines, '---', body].join('\n'));
const frontmatter = fc.oneof(wellFormed, chaotic);

describe('headerFromHead', () => {
  it('gives exactly what the YAML-based reference gives, for any frontmatter', () => {
    let fastPath = 0;
    fc.assert(
      fc.property(frontmatter, (text) => {
        const fast = headerFromHead('/m', 'a.md', 1000, text, true);
        expect(fast).toEqual(headerFromText('/m', 'a.md', 1000, text));
        const lines = text.split('\n');
        const close = lines.indexOf('---', 1);
        if (lines[0] === '---' && close > 1 && parseSimpleYaml(lines, close)) fastPath++;
      }),
      { numRuns: 2000 },
    );
    // The comparison means something only if the shortcut was actually taken often.
    expect(fastPath).toBeGreaterThan(100);
  });

  it('asks for more when frontmatter is still open at the end of an incomplete head', () => {
    const head = `---\nname: x\n${'k: v\n'.repeat(10)}`;
    expect(headerFromHead('/m', 'a.md', 0, head, false)).toBeUndefined();
    expect(headerFromHead('/m', 'a.md', 0, head, true)).toEqual(
      headerFromText('/m', 'a.md', 0, head),
    );
  });
});

describe('scanMemories with the shortcut', () => {
  it('returns the headers the YAML reference reads from each whole file, newest first', async () => {
    const dir = tempMemoryDir();
    const files: Record<string, string> = {
      'simple.md': '---\nname: simple\ndescription: Plain one line\ntype: user\n---\nbody\n',
      'quoted.md': '---\nname: q\ndescription: "quoted: with colon"\ntype: feedback\n---\nb\n',
      // Frontmatter closing after the first 4 KB (long lines) but within 30 lines.
      'long.md': `---\nname: long\ndescription: closes late\n${Array.from({ length: 20 }, (_, i) => `k${i}: ${'x'.repeat(300)}`).join('\n')}\ntype: project\n---\nbody\n`,
      // A multi-byte character straddling the 4 KB boundary.
      'utf8.md': `---\nname: u\ndescription: ${'é'.repeat(2100)}\ntype: reference\n---\n`,
      'never-closes.md': `---\nname: n\n${'a: b\n'.repeat(40)}`,
      'none.md': 'just text\n'.repeat(1000),
      'revoked.md': '---\nname: r\ndescription: gone\ntype: user\nstatus: revoked\n---\n',
      'sub/nested.md': '---\nname: nested\ndescription: in a folder\ntype: project\n---\n',
    };
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'sub'));
    let t = 1_700_000_000;
    for (const [file, text] of Object.entries(files)) {
      await writeFile(join(dir, file), text);
      const { utimes } = await import('node:fs/promises');
      await utimes(join(dir, file), t, t);
      t += file === 'quoted.md' ? 0 : 10; // one tie, broken by name
    }
    for (const cap of [Number.POSITIVE_INFINITY, 5]) {
      const scan = await scanMemories(dir, { cap });
      const reference = await Promise.all(
        scan.memories.map(async (m) =>
          headerFromText(dir, m.file, m.mtimeMs, await readFile(m.path, 'utf8')),
        ),
      );
      expect(scan.memories).toEqual(reference);
      expect(scan.memories.map((m) => m.mtimeMs)).toEqual(
        [...scan.memories.map((m) => m.mtimeMs)].sort((a, b) => b - a),
      );
      expect(scan.total).toBe(8);
      expect(scan.memories).toHaveLength(Math.min(cap, 8));
    }
    const all = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
    expect(all.memories.find((m) => m.file === 'long.md')?.type).toBe('project');
    expect(all.memories.findIndex((m) => m.file === 'quoted.md')).toBeLessThan(
      all.memories.findIndex((m) => m.file === 'simple.md'),
    );
  });

  it('is empty for a missing directory', async () => {
    expect((await scanMemories(join(tempMemoryDir(), 'missing'))).memories).toEqual([]);
  });
});
