/**
 * MEMORY.md as people write it: numbered lists, emphasis, titles, angle brackets, tables, labels,
 * lines under headings. Every markdown link to a memory counts as its pointer; audit, add, rm and
 * rebuild all read it so, and edit that line instead of adding another.
 */
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../../src/cli/test-io.js';

const memory = (name: string) =>
  `---\nname: ${name}\ndescription: the ${name} memory, one line\ntype: project\n---\n${name} body\n**Why:** x\n**How to apply:** y\n`;

const INDEX = `# Memory

## Numbered
1. [one](mem1.md) — first

## Emphasis and titles
- **[two](mem2.md)** — second
- [three](mem3.md "the third") — third

## Table
| memory | what |
| --- | --- |
| [four](<mem4 notes.md>) | fourth |

## Labels
- five: [link](sub/../mem5.md)
`;

async function directory(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-index-forms-'));
  for (const n of ['mem1', 'mem2', 'mem3', 'mem5'])
    await writeFile(join(dir, `${n}.md`), memory(n));
  await writeFile(join(dir, 'mem4 notes.md'), memory('mem4'));
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'MEMORY.md'), INDEX);
  return dir;
}

async function engram(dir: string, ...args: string[]) {
  return runCaptured([...args, '--dir', dir, '--json'], testIo());
}

const pointerLines = (text: string, file: string) =>
  text.split('\n').filter((l) => l.includes(`](${file}`) || l.includes(`](<${file}`)).length;

describe('index line forms', () => {
  it('reads all five forms under headings: zero orphans, zero dangling pointers', async () => {
    const dir = await directory();
    const r = await engram(dir, 'audit');
    const report = JSON.parse(r.stdout);
    expect(report.problems).toEqual([]);
    expect(report.orphans).toBe(0);
    expect(report.orphanCheck).toEqual({ perFile: 0, byLinks: 0, reliable: true });
    expect(report.indexEntries).toBe(5);
    expect(r.code).toBe(0);
  });

  it('add edits the existing line of a memory instead of adding a second', async () => {
    const dir = await directory();
    for (const file of ['mem1.md', 'mem2.md', 'mem3.md']) {
      const r = await engram(
        dir,
        'add',
        '--type',
        'project',
        '--name',
        file.replace('.md', ''),
        '--description',
        'updated description',
        '--body',
        'new body\n**Why:** x\n**How to apply:** y',
        '--file',
        file,
      );
      expect(r.code, r.stderr).toBe(0);
      // The save reports the line the index really holds, whatever its form.
      const index = await readFile(join(dir, 'MEMORY.md'), 'utf8');
      expect(index.split('\n')).toContain(JSON.parse(r.stdout).indexLine);
    }
    const index = await readFile(join(dir, 'MEMORY.md'), 'utf8');
    for (const file of ['mem1.md', 'mem2.md', 'mem3.md']) expect(pointerLines(index, file)).toBe(1);
    expect(index).toContain('- **[two](mem2.md)** — second');
    expect(index).toMatch(/^1\. \[mem1\]\(mem1\.md\) — updated description$/m);
    expect(index).toContain('## Numbered');
    expect(JSON.parse((await engram(dir, 'audit')).stdout).problems).toEqual([]);
  });

  it('rm removes the numbered line, the table row and the labelled line', async () => {
    const dir = await directory();
    for (const ref of ['mem1', 'mem4 notes', 'mem5']) {
      const r = await engram(dir, 'rm', ref);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).removedIndexLine).toBe(true);
    }
    const index = await readFile(join(dir, 'MEMORY.md'), 'utf8');
    expect(index).not.toMatch(/mem1\.md|mem4 notes\.md|mem5\.md/);
    expect(index).toContain('[two](mem2.md)');
    expect(JSON.parse((await engram(dir, 'audit')).stdout).problems).toEqual([]);
  });

  it('index --rebuild keeps every form, drops duplicates and dangling lines, adds orphans once', async () => {
    const dir = await directory();
    await writeFile(join(dir, 'mem6.md'), memory('mem6'));
    await writeFile(join(dir, 'MEMORY.md'), `${INDEX}- [two again](mem2.md)\n- [gone](gone.md)\n`);
    const r = await engram(dir, 'index', '--rebuild');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ added: ['mem6.md'] });
    const index = await readFile(join(dir, 'MEMORY.md'), 'utf8');
    for (const f of ['mem1.md', 'mem2.md', 'mem3.md', 'mem4 notes.md', 'mem6.md']) {
      expect(pointerLines(index, f)).toBe(1);
    }
    expect(index).toContain('| [four](<mem4 notes.md>) | fourth |');
    expect(index).toContain('- five: [link](sub/../mem5.md)');
    expect(index).not.toContain('gone.md');
    const again = await engram(dir, 'index', '--rebuild');
    expect(JSON.parse(again.stdout)).toMatchObject({ added: [], removed: [] });
    expect(await readFile(join(dir, 'MEMORY.md'), 'utf8')).toBe(index);
  });
});
