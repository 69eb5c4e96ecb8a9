import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engram, json, memoryFile, sandbox } from './support.js';

describe('caps', () => {
  it('300 memory files: the 200 newest are scanned and 100 are reported left out', () => {
    const s = sandbox();
    const dir = join(s.root, 'many');
    mkdirSync(dir);
    for (let i = 0; i < 300; i++) {
      memoryFile(
        dir,
        `fakt-${String(i).padStart(3, '0')}.md`,
        { name: `Fakt ${i}`, description: `Fakt Nummer ${i}`, type: 'reference' },
        `${i}\n`,
        1_700_000_000 + i * 60,
      );
    }
    const r = engram(s, ['list', '--dir', dir, '--json']);
    const out = json<{
      memories: Array<{ file: string }>;
      total: number;
      dropped: number;
      cap: number;
    }>(r);
    expect(out.memories).toHaveLength(200);
    expect(out.dropped).toBe(100);
    expect(out.total).toBe(300);
    expect(out.cap).toBe(200);
    expect(out.memories[0]?.file).toBe('fakt-299.md');
    expect(out.memories.at(-1)?.file).toBe('fakt-100.md');
    const plain = engram(s, ['list', '--dir', dir]);
    expect(plain.stdout.trim().split('\n')).toHaveLength(200);
    expect(plain.stderr).toMatch(/100/);
  });

  it('a 197 KB MEMORY.md under 200 lines loads ≤ 25,000 bytes, cut at a line, with a warning naming both sizes', () => {
    const s = sandbox();
    const dir = join(s.root, 'fat');
    mkdirSync(dir);
    // Multi-byte text so a naive byte cut would split characters.
    const lines = Array.from({ length: 150 }, (_, i) =>
      `- [メモ ${i}](memo-${i}.md) — ${'長い説明と émoji 🚀 '.repeat(40)}`.slice(0, 600),
    );
    let text = `${lines.join('\n')}\n`;
    text = `${text}- [Rest](rest.md) — ${'x'.repeat(197 * 1024 - Buffer.byteLength(text) - 25)}\n`;
    writeFileSync(join(dir, 'MEMORY.md'), text);
    const size = Buffer.byteLength(text);
    expect(text.split('\n').length - 1).toBeLessThan(200);
    const r = engram(s, ['index', '--show', '--dir', dir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const idx = json<{
      content: string;
      truncated: boolean;
      totalBytes: number;
      keptBytes: number;
      limitsHit: string[];
    }>(r);
    expect(idx.truncated).toBe(true);
    expect(idx.totalBytes).toBe(size);
    expect(idx.keptBytes).toBeLessThanOrEqual(25_000);
    expect(idx.limitsHit).toContain('bytes');
    const kept = idx.content.slice(0, idx.content.indexOf('\n\n'));
    expect(text.startsWith(`${kept}\n`)).toBe(true);
    expect(kept).not.toContain('\uFFFD');
    const warning = idx.content.slice(kept.length);
    expect(warning).toContain(String(size));
    expect(warning).toMatch(/25,?000/);
    // The plain form is what an agent receives: the same capped text with the warning.
    const plain = engram(s, ['index', '--show', '--dir', dir]);
    expect(plain.stdout).toContain(String(size));
    expect(Buffer.byteLength(plain.stdout)).toBeLessThan(26_000);
  });

  it('a 300-line MEMORY.md loads 200 lines', () => {
    const s = sandbox();
    const dir = join(s.root, 'long');
    mkdirSync(dir);
    const lines = Array.from({ length: 300 }, (_, i) => `- [Punkt ${i}](punkt-${i}.md) — kurz`);
    writeFileSync(join(dir, 'MEMORY.md'), `${lines.join('\n')}\n`);
    const idx = json<{
      content: string;
      keptLines: number;
      totalLines: number;
      limitsHit: string[];
    }>(engram(s, ['index', '--show', '--dir', dir, '--json']));
    expect(idx.keptLines).toBe(200);
    expect(idx.totalLines).toBe(300);
    expect(idx.limitsHit).toEqual(['lines']);
    expect(idx.content).toContain('- [Punkt 199](punkt-199.md)');
    expect(idx.content).not.toContain('- [Punkt 200](punkt-200.md)');
    expect(idx.content).toMatch(/300/);
    const audit = json<{ problems: Array<{ kind: string }> }>(
      engram(s, ['audit', '--dir', dir, '--json']),
    );
    expect(audit.problems.map((p) => p.kind)).toContain('index_over_lines');
  });
});
