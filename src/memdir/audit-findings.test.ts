import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEMP_PREFIX } from '../util/atomic-write.js';
import { claimName } from '../util/file-lock.js';
import { auditMemoryDir } from './audit.js';
import { MEMORY_LOCK } from './dir-lock.js';
import { rebuildIndexText } from './rebuild-index.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-audit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const memory = (name: string) =>
  `---\nname: ${name}\ndescription: about ${name}\ntype: user\n---\nThe fact about ${name}.\n`;
/** Above Linux's pid_max ceiling: no process has it. */
const DEAD_PID = 4194305;

describe('the audit sees what crashed writers leave', () => {
  it('gives each finding its own kind, and --fix removes only the safe ones', async () => {
    await writeFile(join(dir, 'a.md'), memory('a'));
    await writeFile(join(dir, 'empty.md'), '');
    await writeFile(join(dir, 'cut.md'), '---\nname: cut\ndescription: half');
    await writeFile(
      join(dir, 'MEMORY.md'),
      '- [A](a.md) — a\n- [A again](a.md) — a\n- [Broken](a b.md)\n- [site](https://example.com)\n- [E](empty.md)\n- [C](cut.md)\n',
    );
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', `${TEMP_PREFIX}b.md.${DEAD_PID}.abcd1234`), 'partial');
    await writeFile(join(dir, `${MEMORY_LOCK}.stale-123-abcd`), '123');
    await mkdir(join(dir, MEMORY_LOCK));
    await writeFile(join(dir, MEMORY_LOCK, claimName(DEAD_PID)), '');
    execFileSync('mkfifo', [join(dir, 'x.md')]);

    const report = await auditMemoryDir(dir);
    const kinds = report.problems.map((p) => p.kind);
    for (const kind of [
      'duplicate_index_line',
      'unparseable_index_line',
      'truncated_body',
      'leftover_temp',
      'stale_lock_file',
      'dead_lock_holder',
      'not_regular_file',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    expect(
      report.problems
        .filter((p) => p.kind === 'truncated_body')
        .map((p) => p.file)
        .sort(),
    ).toEqual(['cut.md', 'empty.md']);
    const unparseable = report.problems.find((p) => p.kind === 'unparseable_index_line');
    expect(unparseable?.line).toBe(3);
    // A rebuild keeps the lines it cannot read, so the finding never sends a person there.
    const index = await readFile(join(dir, 'MEMORY.md'), 'utf8');
    expect(rebuildIndexText(index, []).text).toContain('- [Broken](a b.md)');
    expect(unparseable?.message).toMatch(/`engram index --rebuild` keeps lines it cannot read/);
    expect(unparseable?.message).toMatch(/%20 for spaces/);
    expect(report.problems.find((p) => p.kind === 'leftover_temp')?.file).toBe(
      `sub/${TEMP_PREFIX}b.md.${DEAD_PID}.abcd1234`,
    );
    expect(report.ok).toBe(false);

    const fixed = await auditMemoryDir(dir, { fix: true });
    expect(fixed.fixed?.map((f) => f.kind).sort()).toEqual(
      expect.arrayContaining(['leftover_temp', 'stale_lock_file']),
    );
    expect(existsSync(join(dir, 'sub', `${TEMP_PREFIX}b.md.${DEAD_PID}.abcd1234`))).toBe(false);
    expect(existsSync(join(dir, `${MEMORY_LOCK}.stale-123-abcd`))).toBe(false);
    const after = (await auditMemoryDir(dir)).problems.map((p) => p.kind);
    expect(after).not.toContain('leftover_temp');
    expect(after).not.toContain('stale_lock_file');
    expect(after).not.toContain('dead_lock_holder');
    // What only a person can decide stays reported.
    expect(after).toContain('truncated_body');
    expect(after).toContain('not_regular_file');
  });

  it('names a lock held by a dead process (and --fix clears it); a temp file of a live writer is not a leftover', async () => {
    await mkdir(join(dir, MEMORY_LOCK));
    await writeFile(join(dir, MEMORY_LOCK, claimName(DEAD_PID)), '');
    await writeFile(join(dir, `${TEMP_PREFIX}a.md.${process.pid}.abcd1234`), 'in progress');
    const report = await auditMemoryDir(dir);
    expect(report.problems.map((p) => p.kind)).toEqual(['dead_lock_holder']);
    expect(report.problems[0]?.message).toContain(`PID ${DEAD_PID}`);
    await auditMemoryDir(dir, { fix: true });
    expect((await auditMemoryDir(dir)).ok).toBe(true);
  });
});
