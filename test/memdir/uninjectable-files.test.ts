/**
 * Files that cannot be injected are not: a memory with NUL bytes or bytes that are not UTF-8 is
 * skipped from recall and named by the audit; a symbolic link is never followed and is reported.
 */
import { mkdtempSync } from 'node:fs';
import { link, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../../src/cli/test-io.js';
import { recall } from '../../src/recall/recall.js';

const head = (name: string) =>
  `---\nname: ${name}\ndescription: kubernetes rollout notes for ${name}\ntype: project\n---\n`;

async function directory(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-uninjectable-'));
  await writeFile(join(dir, 'clean.md'), `${head('clean')}kubernetes rollout is fine\n`);
  await writeFile(join(dir, 'nul-head.md'), `${head('nul-head')}bad\u0000bytes\n`);
  // A NUL far below the head the scan reads: only the full read at injection time sees it.
  await writeFile(
    join(dir, 'nul-deep.md'),
    `${head('nul-deep')}${'padding line\n'.repeat(600)}x\u0000y\n`,
  );
  await writeFile(
    join(dir, 'latin1.md'),
    Buffer.concat([Buffer.from(head('latin1')), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])]),
  );
  const outside = mkdtempSync(join(tmpdir(), 'engram-outside-'));
  await writeFile(join(outside, 'secret.md'), `${head('secret')}outside the directory\n`);
  await symlink(join(outside, 'secret.md'), join(dir, 'linked.md'));
  const index = ['clean', 'nul-head', 'nul-deep', 'latin1', 'linked']
    .map((n) => `- [${n}](${n}.md)`)
    .join('\n');
  await writeFile(join(dir, 'MEMORY.md'), `${index}\n`);
  return dir;
}

describe('files that cannot be injected', () => {
  it('are skipped from recall, wherever the bad bytes are', async () => {
    const dir = await directory();
    const result = await recall({ dir, query: 'kubernetes rollout notes', now: Date.now() });
    expect(result.selected.map((m) => m.file)).toEqual(['clean.md']);
    expect(result.text).not.toContain('\u0000');
    expect(result.text).not.toContain('outside the directory');
  });

  it('are named by audit, and the symlink is reported, not followed', async () => {
    const dir = await directory();
    const r = await runCaptured(['audit', '--dir', dir, '--json'], testIo());
    expect(r.code).toBe(1);
    const problems = JSON.parse(r.stdout).problems as Array<{ kind: string; file: string }>;
    const kinds = (kind: string) =>
      problems
        .filter((p) => p.kind === kind)
        .map((p) => p.file)
        .sort();
    expect(kinds('uninjectable')).toEqual(['latin1.md', 'nul-deep.md', 'nul-head.md']);
    expect(kinds('symlink')).toEqual(['linked.md']);
    // The link exists: its index line is not "dangling", the symlink finding says what it is.
    expect(kinds('dangling_pointer')).toEqual([]);
    const text = await runCaptured(['audit', '--dir', dir], testIo());
    expect(text.stdout).toMatch(/nul-head\.md is skipped from recall: it contains NUL bytes/);
    expect(text.stdout).toMatch(/latin1\.md is skipped from recall: it is not valid UTF-8/);
    expect(text.stdout).toMatch(
      /linked\.md is a symbolic link that leads out of the memory directory/,
    );
    expect(text.stdout).not.toMatch(/linked\.md, which does not exist/);
  });

  it('reports a linked folder too: the memories in it are never read, and audit says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-linked-folder-'));
    await writeFile(join(dir, 'clean.md'), `${head('clean')}kubernetes rollout is fine\n`);
    const outside = mkdtempSync(join(tmpdir(), 'engram-outside-'));
    await writeFile(join(outside, 'secret.md'), `${head('secret')}outside the directory\n`);
    await symlink(outside, join(dir, 'team-notes'));
    await writeFile(join(dir, 'MEMORY.md'), '- [clean](clean.md)\n');
    const result = await recall({ dir, query: 'kubernetes rollout notes secret', now: Date.now() });
    expect(result.text).not.toContain('outside the directory');
    const r = await runCaptured(['audit', '--dir', dir, '--json'], testIo());
    const problems = JSON.parse(r.stdout).problems as Array<{ kind: string; file: string }>;
    expect(problems.filter((p) => p.kind === 'symlink').map((p) => p.file)).toEqual([
      'team-notes/',
    ]);
    const text = await runCaptured(['audit', '--dir', dir], testIo());
    expect(text.stdout).toMatch(/team-notes\/ is a symbolic link to a folder that leads out/);
  });

  it('never reads a hard link to a file outside: not listed with its text, not recalled, and recall still answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-hard-link-'));
    await writeFile(join(dir, 'clean.md'), `${head('clean')}kubernetes rollout is fine\n`);
    const outside = mkdtempSync(join(tmpdir(), 'engram-outside-'));
    await writeFile(
      join(outside, 'secret.md'),
      '---\nname: secret\ndescription: kubernetes rollout notes, outside sentinel\ntype: project\n---\noutside body sentinel\n',
    );
    await link(join(outside, 'secret.md'), join(dir, 'hard.md'));
    await writeFile(join(dir, 'MEMORY.md'), '- [clean](clean.md)\n- [hard](hard.md)\n');
    const result = await recall({ dir, query: 'kubernetes rollout notes', now: Date.now() });
    expect(result.selected.map((m) => m.file)).toEqual(['clean.md']);
    expect(result.text).not.toContain('sentinel');
    const list = await runCaptured(['list', '--dir', dir, '--json'], testIo());
    expect(list.stdout).not.toContain('sentinel');
    const r = await runCaptured(['audit', '--dir', dir, '--json'], testIo());
    const problems = JSON.parse(r.stdout).problems as Array<{ kind: string; file: string }>;
    expect(problems.filter((p) => p.kind === 'unreadable').map((p) => p.file)).toEqual(['hard.md']);
    const text = await runCaptured(['audit', '--dir', dir], testIo());
    expect(text.stdout).toMatch(/hard\.md is a hard link/);
  });
});
