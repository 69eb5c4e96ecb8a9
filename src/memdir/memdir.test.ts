import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  auditFrom,
  auditMemoryDir,
  INDEX_FILE,
  loadIndex,
  parseFrontmatter,
  parseIndexEntries,
  readMemory,
  rebuildIndexText,
  removeMemory,
  revokeMemory,
  saveMemory,
  scanMemories,
  truncateIndex,
} from './index.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'engram-memdir-'));
}

function writeMemory(
  dir: string,
  file: string,
  fm: string,
  body = 'body\n',
  mtimeSec?: number,
): void {
  writeFileSync(join(dir, file), `---\n${fm}\n---\n${body}`);
  if (mtimeSec !== undefined) utimesSync(join(dir, file), mtimeSec, mtimeSec);
}

describe('scanMemories', () => {
  it('keeps the 200 newest of 300 files and says 100 were left out', async () => {
    const dir = tempDir();
    for (let i = 0; i < 300; i++) {
      writeMemory(
        dir,
        `m${i}.md`,
        `name: m${i}\ndescription: d${i}\ntype: project`,
        'x\n',
        1_700_000_000 + i * 60,
      );
    }
    const scan = await scanMemories(dir);
    expect(scan.memories).toHaveLength(200);
    expect(scan.total).toBe(300);
    expect(scan.dropped).toBe(100);
    expect(scan.memories[0]?.file).toBe('m299.md');
    expect(scan.memories.at(-1)?.file).toBe('m100.md');
  });

  it('ignores MEMORY.md, temp files and dot folders, and reads nested folders', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, INDEX_FILE), '- [a](a.md) — a\n');
    writeMemory(dir, 'a.md', 'name: a\ndescription: a\ntype: user');
    writeFileSync(join(dir, '.engram-tmp-a.md.1.abc'), 'partial');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'team'));
    mkdirSync(join(dir, '.git'));
    writeMemory(dir, 'team/t.md', 'name: t\ndescription: t\ntype: reference');
    writeMemory(dir, '.git/x.md', 'name: x\ndescription: x\ntype: user');
    const scan = await scanMemories(dir);
    expect(scan.memories.map((m) => m.file).sort()).toEqual(['a.md', 'team/t.md']);
  });

  it('degrades a missing or unknown type to unknown and never throws', async () => {
    const dir = tempDir();
    writeMemory(dir, 'a.md', 'name: a\ndescription: a\ntype: opinion');
    writeMemory(dir, 'b.md', 'name: b\ndescription: b');
    writeMemory(dir, 'c.md', 'name: [unclosed\ndescription: : :');
    const scan = await scanMemories(dir);
    expect(scan.memories.map((m) => m.type)).toEqual(['unknown', 'unknown', 'unknown']);
  });

  it('gives no usable header when the frontmatter does not close within 30 lines', async () => {
    const dir = tempDir();
    const long = Array.from({ length: 40 }, (_, i) => `k${i}: v`).join('\n');
    writeMemory(dir, 'late.md', `name: late\ndescription: late\ntype: user\n${long}`);
    const [m] = (await scanMemories(dir)).memories;
    expect(m?.hasFrontmatter).toBe(false);
    expect(m?.description).toBeUndefined();
    expect(parseFrontmatter('---\nname: a\n---\nbody').data).toEqual({ name: 'a' });
  });
});

describe('MEMORY.md loading', () => {
  it('caps a 197 KB index of fewer than 200 lines at 25,000 bytes on a line boundary, with a warning', async () => {
    const dir = tempDir();
    const line = `- [Entry](entry.md) — ${'é'.repeat(500)}\n`; // multi-byte characters near every cut
    const text = line.repeat(Math.ceil(197_000 / Buffer.byteLength(line)));
    expect(text.split('\n').length).toBeLessThan(200);
    writeFileSync(join(dir, INDEX_FILE), text);
    const index = await loadIndex(dir);
    expect(index.truncated).toBe(true);
    expect(index.limitsHit).toEqual(['bytes']);
    expect(Buffer.byteLength(index.kept)).toBeLessThanOrEqual(25_000);
    expect(index.kept.endsWith('\n')).toBe(true);
    expect(text.startsWith(index.kept)).toBe(true);
    expect(index.warning).toContain(`${Buffer.byteLength(text)} bytes`);
    expect(index.warning).toContain('25000 bytes');
    expect(index.content.endsWith(`${index.warning}\n`)).toBe(true);
  });

  it('loads 200 lines of a 300-line index', async () => {
    const dir = tempDir();
    const text = Array.from({ length: 300 }, (_, i) => `- [m${i}](m${i}.md) — d`).join('\n');
    writeFileSync(join(dir, INDEX_FILE), `${text}\n`);
    const index = await loadIndex(dir);
    expect(index.keptLines).toBe(200);
    expect(index.limitsHit).toEqual(['lines']);
    expect(index.warning).toContain('300 lines');
  });

  it('never exceeds either cap and keeps a prefix ending at a newline (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 80 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 2_000 }),
        (lines, maxLines, maxBytes) => {
          const text = lines.map((l) => `${l.replace(/\n/g, ' ')}\n`).join('');
          const r = truncateIndex(text, { maxLines, maxBytes });
          expect(text.startsWith(r.kept)).toBe(true);
          expect(Buffer.byteLength(r.kept)).toBeLessThanOrEqual(
            Math.max(maxBytes, r.truncated ? 0 : Infinity),
          );
          if (r.truncated) {
            expect(r.keptLines).toBeLessThanOrEqual(maxLines);
            expect(Buffer.byteLength(r.kept)).toBeLessThanOrEqual(maxBytes);
            expect(r.kept === '' || r.kept.endsWith('\n')).toBe(true);
          } else {
            expect(r.content).toBe(text);
          }
        },
      ),
    );
  });
});

describe('save, remove, revoke', () => {
  it('writes the topic file and its one index line, and updates rather than duplicates', async () => {
    const dir = join(tempDir(), 'nested', 'memory');
    const first = await saveMemory(dir, {
      name: 'Use pnpm',
      description: 'The team installs with pnpm',
      type: 'project',
      body: 'Use pnpm.\n**Why:** lockfile\n**How to apply:** always',
    });
    expect(first.created).toBe(true);
    expect(first.warnings).toEqual([]);
    const again = await saveMemory(dir, { ...inputOf(first.file), description: 'pnpm, never npm' });
    expect(again.created).toBe(false);
    const entries = parseIndexEntries(readFileSync(join(dir, INDEX_FILE), 'utf8'));
    expect(entries).toEqual([
      expect.objectContaining({
        title: 'use-pnpm',
        file: 'use-pnpm.md',
        hook: 'pnpm, never npm',
        line: 0,
      }),
    ]);
    const doc = await readMemory(dir, 'use-pnpm.md');
    expect(doc.header).toMatchObject({
      type: 'user',
      description: 'pnpm, never npm',
      status: 'active',
    });
    expect(first.indexLine.length).toBeLessThanOrEqual(150);
  });

  it('refuses a missing description and warns when feedback has no Why', async () => {
    const dir = tempDir();
    await expect(
      saveMemory(dir, { name: 'x', description: ' ', type: 'user', body: 'b' }),
    ).rejects.toThrow(/description/);
    const saved = await saveMemory(dir, {
      name: 'x',
      description: 'd',
      type: 'feedback',
      body: 'no reason',
    });
    expect(saved.warnings.join()).toMatch(/Why/);
  });

  it('refuses file names that leave the directory', async () => {
    const dir = tempDir();
    for (const file of [
      '../x.md',
      '/etc/x.md',
      'a/../../x.md',
      'MEMORY.md',
      'x.txt',
      '.hidden.md',
    ]) {
      await expect(saveMemory(dir, { ...inputOf('a.md'), file })).rejects.toThrow();
    }
  });

  it('removes a file and its pointer together; revocation keeps the file but drops the pointer', async () => {
    const dir = tempDir();
    await saveMemory(dir, inputOf('a.md'));
    await saveMemory(dir, inputOf('b.md'));
    await removeMemory(dir, 'a.md');
    await revokeMemory(dir, 'b.md', {
      reason: 'wrong port',
      supersededBy: 'c.md',
      now: new Date('2026-01-02'),
    });
    expect(readFileSync(join(dir, INDEX_FILE), 'utf8')).toBe('');
    const doc = await readMemory(dir, 'b.md');
    expect(doc.header.status).toBe('revoked');
    expect(doc.header.frontmatter).toMatchObject({
      revoked: '2026-01-02',
      reason: 'wrong port',
      superseded_by: 'c.md',
    });
    expect((await auditMemoryDir(dir)).ok).toBe(true);
  });

  it('never saves over a revoked memory: the revocation stays on record and off the index', async () => {
    const dir = tempDir();
    await saveMemory(dir, inputOf('b.md'));
    await revokeMemory(dir, 'b.md', { reason: 'wrong port' });
    const revoked = readFileSync(join(dir, 'b.md'), 'utf8');
    await expect(saveMemory(dir, inputOf('b.md'))).rejects.toMatchObject({
      code: 'refused',
      message: expect.stringMatching(/b\.md holds a revoked memory \(reason: wrong port\)/),
    });
    expect(readFileSync(join(dir, 'b.md'), 'utf8')).toBe(revoked);
    expect(readFileSync(join(dir, INDEX_FILE), 'utf8')).toBe('');
  });
});

describe('audit and rebuild', () => {
  it('reports frontmatter that is not valid YAML, and refuses to revoke it silently', async () => {
    const dir = tempDir();
    writeMemory(dir, 'bad.md', 'name: bad\ndescription: port: 8080 is used\ntype: project');
    writeFileSync(join(dir, INDEX_FILE), '- [bad](bad.md) — bad\n');
    const report = await auditMemoryDir(dir);
    expect(report.problems.map((p) => p.kind)).toEqual(['malformed_frontmatter']);
    await expect(revokeMemory(dir, 'bad.md', { reason: 'wrong' })).rejects.toThrow(
      /not valid YAML/,
    );
  });

  it('names orphans, dangling pointers, missing descriptions and unknown types', async () => {
    const dir = tempDir();
    writeMemory(dir, 'orphan.md', 'name: o\ndescription: o\ntype: user');
    writeMemory(dir, 'nodesc.md', 'name: n\ntype: weird');
    writeFileSync(join(dir, INDEX_FILE), '# Index\n- [n](nodesc.md) — n\n- [gone](gone.md) — g\n');
    const report = await auditMemoryDir(dir);
    expect(report.ok).toBe(false);
    const kinds = report.problems.map((p) => `${p.kind}:${p.file}`).sort();
    expect(kinds).toEqual([
      'dangling_pointer:gone.md',
      'missing_description:nodesc.md',
      'orphan:orphan.md',
      'unknown_type:nodesc.md',
    ]);
    expect(report.problems.find((p) => p.kind === 'dangling_pointer')?.line).toBe(3);
    const scan = await scanMemories(dir);
    const rebuilt = rebuildIndexText(readFileSync(join(dir, INDEX_FILE), 'utf8'), scan.memories);
    expect(rebuilt.added).toEqual(['orphan.md']);
    expect(rebuilt.removed).toEqual(['gone.md']);
    expect(rebuilt.text.startsWith('# Index\n- [n](nodesc.md) — n\n')).toBe(true);
  });
});

function inputOf(file: string) {
  return {
    name: file.replace('.md', ''),
    description: `about ${file}`,
    type: 'user' as const,
    body: 'fact',
    file,
  };
}

describe('unreadable memory files', () => {
  it('are audited as unreadable instead of as missing frontmatter', () => {
    const report = auditFrom(
      '/m',
      [
        {
          file: 'locked.md',
          path: '/m/locked.md',
          mtimeMs: 0,
          type: 'unknown',
          status: 'active',
          hasFrontmatter: false,
          frontmatter: {},
          unreadable: 'EACCES',
        },
      ],
      '- [Locked](locked.md) — kept private\n',
    );
    expect(report.problems.map((p) => p.kind)).toEqual(['unreadable']);
    expect(report.problems[0]?.message).toContain('EACCES');
  });
});
