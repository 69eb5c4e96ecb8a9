import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  engram,
  exitOf,
  indexTargets,
  json,
  mdFiles,
  memoryFile,
  sandbox,
  writer,
} from './support.js';

describe('atomic saves under real processes', () => {
  it('two processes saving 200 memories each end with 400 files and 400 index lines', async () => {
    const s = sandbox();
    const dir = join(s.root, 'shared');
    const a = writer(dir, 'Ost', '200');
    const b = writer(dir, 'West', '200');
    let errors = '';
    for (const c of [a, b]) c.stderr?.on('data', (d) => (errors += d));
    expect(await Promise.all([exitOf(a), exitOf(b)]), errors).toEqual([0, 0]);
    const files = mdFiles(dir);
    expect(files).toHaveLength(400);
    const targets = indexTargets(dir);
    expect(targets).toHaveLength(400);
    expect(new Set(targets)).toEqual(new Set(files));
    const audit = json<{ problems: Array<{ kind: string }> }>(
      engram(s, ['audit', '--dir', dir, '--json']),
    );
    expect(audit.problems.filter((p) => !p.kind.startsWith('index_over'))).toEqual([]);
  }, 60_000);

  it('a writer SIGKILLed again and again leaves only complete, parseable files; audit names each orphan', async () => {
    const s = sandbox();
    const dir = join(s.root, 'crashy');
    for (let round = 0; round < 10; round++) {
      const child = writer(dir, `K${round}`, 'forever');
      await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
      await sleep(10 + ((round * 53) % 70));
      child.kill('SIGKILL');
      await exitOf(child);
    }
    // One orphan made by hand, so the audit always has something to find.
    memoryFile(
      dir,
      'handmade-orphan.md',
      { name: 'handmade', description: 'no pointer', type: 'user' },
      'x\n',
    );
    const files = mdFiles(dir);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      if (file === 'handmade-orphan.md') continue;
      const text = readFileSync(join(dir, file), 'utf8');
      const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
      expect(m, file).not.toBeNull();
      const fm = parseYaml(m![1]!) as { description: string; type: string };
      const lines = Number(/^(\d+) payload lines/.exec(fm.description)?.[1]);
      const body = m![2]!;
      expect(body.endsWith(`\nEND ${lines}\n`), file).toBe(true);
      expect(body.split('\n').filter((l) => l.startsWith('Zeile ')).length, file).toBe(lines);
    }
    const indexText = existsSync(join(dir, 'MEMORY.md'))
      ? readFileSync(join(dir, 'MEMORY.md'), 'utf8')
      : '';
    expect(indexText === '' || indexText.endsWith('\n')).toBe(true);
    const indexed = new Set(indexTargets(dir));
    for (const f of indexed) expect(files).toContain(f);
    const expectedOrphans = files.filter((f) => !indexed.has(f)).sort();
    expect(expectedOrphans).toContain('handmade-orphan.md');
    const audit = engram(s, ['audit', '--dir', dir, '--json']);
    expect(audit.code).toBe(1);
    const problems = json<{ problems: Array<{ kind: string; file: string }> }>(audit).problems;
    expect(
      problems
        .filter((p) => p.kind === 'orphan')
        .map((p) => p.file)
        .sort(),
    ).toEqual(expectedOrphans);
    // A writer killed while holding the lock, or while taking it, leaves its claim or its attempt
    // behind: the audit names them (dead_lock_holder, stale_lock_file) and --fix deletes them.
    const crashLeftovers = ['orphan', 'leftover_temp', 'dead_lock_holder', 'stale_lock_file'];
    const unexpected = problems.filter((p) => !crashLeftovers.includes(p.kind));
    expect(unexpected).toEqual([]);
  }, 120_000);
});
