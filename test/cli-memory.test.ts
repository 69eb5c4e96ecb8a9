import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../src/cli/test-io.js';
import { checkMemoryInput } from '../src/memdir/memory-file.js';

const CLAUDE_FIXTURE = join(import.meta.dirname, 'fixtures', 'claude-code-memory');

function fixtureCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'engram-cc-')), 'memory');
  cpSync(CLAUDE_FIXTURE, dir, { recursive: true });
  return dir;
}

describe('engram CLI on a Claude Code memory directory', () => {
  it('lists, shows and audits it as it is', async () => {
    const dir = fixtureCopy();
    const io = testIo();
    const list = await runCaptured(['list', '--dir', dir], io);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines)
      expect(line).toMatch(
        /^- \[(user|feedback|project|reference)\] \S+\.md \(\d{4}-\d\d-\d\dT[\d:.]+Z\): .+$/,
      );
    expect(list.stdout).toContain('[feedback] feedback_testing.md');
    expect(list.stdout).toContain(': Integration tests must hit a real database, not mocks');

    const json = JSON.parse((await runCaptured(['list', '--dir', dir, '--json'], io)).stdout);
    expect(json.total).toBe(4);
    expect(json.dropped).toBe(0);
    expect(json.memories.map((m: { type: string }) => m.type).sort()).toEqual([
      'feedback',
      'project',
      'reference',
      'user',
    ]);

    const show = await runCaptured(['show', 'feedback_testing.md', '--dir', dir], io);
    expect(show.stdout).toBe(readFileSync(join(dir, 'feedback_testing.md'), 'utf8'));
    const shown = JSON.parse(
      (await runCaptured(['show', 'user_role.md', '--dir', dir, '--json'], io)).stdout,
    );
    expect(shown.frontmatter.originSessionId).toBe('4b1f0c2e-8d7a-4c55-9a61-2f0e5f3c9d11');
    expect(shown.body).toContain('data scientist');

    const audit = await runCaptured(['audit', '--dir', dir, '--json'], io);
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({
      ok: true,
      memories: 4,
      indexEntries: 4,
      problems: [],
    });
  });

  it('takes --dir and --json before the command too (engram --dir <path> …)', async () => {
    const dir = fixtureCopy();
    const io = testIo();
    const list = await runCaptured(['--dir', dir, 'list'], io);
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toHaveLength(4);
    const audit = await runCaptured(['--json', '--dir', dir, 'audit'], io);
    expect(JSON.parse(audit.stdout)).toMatchObject({ ok: true, memories: 4 });
    // The command's own value wins over the one before it.
    const own = await runCaptured(
      ['--dir', '/nonexistent/memory', 'list', '--dir', dir, '--json'],
      io,
    );
    expect(JSON.parse(own.stdout).total).toBe(4);
  });

  it('audit exits 1 and names an orphan and a dangling pointer; index --rebuild repairs both', async () => {
    const dir = fixtureCopy();
    const io = testIo();
    writeFileSync(
      join(dir, 'MEMORY.md'),
      readFileSync(join(dir, 'MEMORY.md'), 'utf8').replace(/^- \[User role\].*\n/m, '') +
        '- [Gone](gone.md) — removed\n',
    );
    const audit = await runCaptured(['audit', '--dir', dir], io);
    expect(audit.code).toBe(1);
    expect(audit.stdout).toContain('orphan: user_role.md has no line in MEMORY.md');
    expect(audit.stdout).toContain('dangling_pointer: MEMORY.md line 4 points at gone.md');
    expect((await runCaptured(['index', '--check', '--dir', dir], io)).code).toBe(1);
    const rebuild = JSON.parse(
      (await runCaptured(['index', '--rebuild', '--dir', dir, '--json'], io)).stdout,
    );
    expect(rebuild).toMatchObject({ added: ['user_role.md'], removed: ['gone.md'] });
    expect((await runCaptured(['audit', '--dir', dir], io)).code).toBe(0);
  });

  it('index --check fails on a duplicate or unreadable index line, as audit does, until --rebuild', async () => {
    const dir = fixtureCopy();
    const io = testIo();
    const index = readFileSync(join(dir, 'MEMORY.md'), 'utf8');
    const first = /^- \[.*\]\((.*?\.md)\).*$/m.exec(index)!;
    writeFileSync(join(dir, 'MEMORY.md'), `${index}${first[0]}\n- [Broken](notes.md\n`);
    const check = await runCaptured(['index', '--check', '--dir', dir, '--json'], io);
    expect(check.code).toBe(1);
    expect(
      JSON.parse(check.stdout).problems.map((p: { kind: string; file: string }) => p.kind),
    ).toEqual(['unparseable_index_line', 'duplicate_index_line']);
    expect((await runCaptured(['index', '--rebuild', '--dir', dir], io)).code).toBe(0);
    // The rebuild drops the second line for the same file and keeps the line it cannot read.
    const rebuilt = await runCaptured(['index', '--check', '--dir', dir, '--json'], io);
    expect(
      JSON.parse(rebuilt.stdout).problems.map((p: { kind: string; file: string }) => p.kind),
    ).toEqual(['unparseable_index_line']);
    const text = readFileSync(join(dir, 'MEMORY.md'), 'utf8');
    writeFileSync(join(dir, 'MEMORY.md'), text.replace('- [Broken](notes.md\n', ''));
    const after = await runCaptured(['index', '--check', '--dir', dir], io);
    expect(after.stdout).toBe('MEMORY.md is consistent.\n');
  });
});

describe('engram CLI commands', () => {
  it('init, add from stdin, list, index --show, rm', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'engram-cli-')), 'mem');
    const io = testIo();
    expect((await runCaptured(['init', '--dir', dir], io)).code).toBe(0);
    const stdinIo = testIo({
      stdin: 'Prefer small PRs.\n**Why:** reviews are faster\n**How to apply:** split at 300 lines',
    });
    const added = await runCaptured(
      [
        'add',
        '--dir',
        dir,
        '--type',
        'feedback',
        '--name',
        'Small PRs',
        '--description',
        'Keep PRs under 300 lines',
        '--json',
      ],
      stdinIo,
    );
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      file: 'small-prs.md',
      created: true,
      warnings: [],
    });
    const index = await runCaptured(['index', '--show', '--dir', dir], io);
    expect(index.stdout).toBe('- [Small PRs](small-prs.md) — Keep PRs under 300 lines\n');
    const rm = await runCaptured(['rm', 'small-prs.md', '--dir', dir, '--json'], io);
    expect(JSON.parse(rm.stdout)).toEqual({
      file: 'small-prs.md',
      removedFile: true,
      removedIndexLine: true,
    });
    expect((await runCaptured(['index', '--show', '--dir', dir], io)).stdout).toBe('');
  });

  it('list says on stderr where it looked when it lists nothing; JSON is an empty list', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'engram-cli-')), 'mem');
    const io = testIo();
    const empty = await runCaptured(['list', '--dir', dir], io);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain(`no memories in ${dir} (project layer)`);
    const json = await runCaptured(['list', '--dir', dir, '--json'], io);
    expect(JSON.parse(json.stdout).memories).toEqual([]);
    expect(json.stderr).toBe('');

    const add = testIo({ ...io, stdin: 'Use pnpm.' });
    const args = ['--dir', dir, '--type', 'feedback', '--name', 'pnpm', '--description', 'pnpm'];
    expect((await runCaptured(['add', ...args], add)).code).toBe(0);
    expect(
      (await runCaptured(['revoke', 'pnpm', '--dir', dir, '--reason', 'npm now'], io)).code,
    ).toBe(0);
    const revoked = await runCaptured(['list', '--dir', dir], io);
    expect(revoked.stdout).toBe('');
    expect(revoked.stderr).toMatch(
      /no active memories in .*; 1 revoked \(`engram list --all` shows them\)/,
    );
    const all = await runCaptured(['list', '--dir', dir, '--all'], io);
    expect(all.stdout).toContain('pnpm.md');
    expect(all.stderr).toBe('');
  });

  it('finds a memory by file, stem or name for show and rm, and says when there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-cli-'));
    const io = testIo();
    const add = ['add', '--dir', dir, '--type', 'user', '--description', 'Prefers terse answers'];
    await runCaptured([...add, '--name', 'Terse answers', '--body', 'Keep answers short.'], io);
    expect((await runCaptured(['show', 'terse-answers', '--dir', dir], io)).stdout).toContain(
      'Keep answers short.',
    );
    expect((await runCaptured(['show', 'Terse answers', '--dir', dir], io)).code).toBe(0);
    const missing = await runCaptured(['rm', 'nothing-here', '--dir', dir], io);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/No memory nothing-here\.md/);
    const rm = await runCaptured(['rm', 'Terse answers', '--dir', dir, '--json'], io);
    expect(JSON.parse(rm.stdout)).toMatchObject({ file: 'terse-answers.md', removedFile: true });
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-cli-'));
    const io = testIo();
    const noDesc = await runCaptured(
      ['add', '--dir', dir, '--type', 'user', '--name', 'x', '--body', 'y'],
      io,
    );
    expect(noDesc.code).toBe(2);
    expect(noDesc.stderr).toMatch(/description/);
    const badType = await runCaptured(
      [
        'add',
        '--dir',
        dir,
        '--type',
        'opinion',
        '--name',
        'x',
        '--description',
        'd',
        '--body',
        'y',
      ],
      io,
    );
    expect(badType.code).toBe(2);
    expect(badType.stderr).toMatch(/user, feedback, project, reference/);
    const warn = await runCaptured(
      [
        'add',
        '--dir',
        dir,
        '--type',
        'project',
        '--name',
        'p',
        '--description',
        'd',
        '--body',
        'no reason given',
      ],
      io,
    );
    expect(warn.code).toBe(0);
    expect(warn.stderr).toMatch(/Why/);
    writeFileSync(join(dir, 'plain.txt'), 'x');
    const notDir = await runCaptured(['list', '--dir', join(dir, 'plain.txt')], io);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toMatch(/is a file, not a memory directory/);
    const missing = await runCaptured(['show', 'nope.md', '--dir', dir], io);
    expect(missing.code).toBe(3);
    expect((await runCaptured(['bogus'], io)).code).toBe(2);
  });

  it('add saves a body only as given: a --body-file that is missing, not a regular file or not UTF-8, NUL bytes, or two bodies are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-cli-'));
    const io = testIo();
    const add = (...more: string[]) =>
      runCaptured(
        ['add', '--dir', dir, '--type', 'user', '--name', 'n', '--description', 'd', ...more],
        io,
      );
    const missing = await add('--body-file', join(dir, 'no-such-body.txt'));
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/--body-file .*no-such-body\.txt does not exist/);
    const folder = await add('--body-file', dir);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/is a directory, not a regular file/);
    const fifo = join(dir, 'body.fifo');
    execFileSync('mkfifo', [fifo]);
    const pipe = await add('--body-file', fifo);
    expect(pipe.code).toBe(2);
    expect(pipe.stderr).toMatch(/FIFO/);
    const latin1 = join(dir, 'latin1.txt');
    writeFileSync(latin1, Buffer.from('caf\xe9 au lait', 'latin1'));
    const notUtf8 = await add('--body-file', latin1);
    expect(notUtf8.code).toBe(2);
    expect(notUtf8.stderr).toMatch(/not valid UTF-8/);
    const withNul = join(dir, 'nul.txt');
    writeFileSync(withNul, 'before\0after');
    expect((await add('--body-file', withNul)).stderr).toMatch(/NUL/);
    expect(
      (
        await runCaptured(
          ['add', '--dir', dir, '--type', 'user', '--name', 'n', '--description', 'd'],
          { ...io, stdinIsTty: false, readStdin: async () => 'a\0b' },
        )
      ).code,
    ).toBe(2);
    const twice = await add('--body', 'one', '--body-file', latin1);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--body or --body-file/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.md'))).toEqual([]);
    const bom = join(dir, 'bom.txt');
    writeFileSync(bom, '\uFEFFWritten on Windows.\r\n');
    expect((await add('--body-file', bom)).code).toBe(0);
    expect(readFileSync(join(dir, 'n.md'), 'utf8')).toMatch(/---\nWritten on Windows\./);
  });

  it('add refuses a name or description with control characters: nothing reaches MEMORY.md', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-cli-'));
    const io = testIo();
    const add = (name: string, description: string) =>
      runCaptured(
        ['add', '--dir', dir, '--type', 'user', '--name', name, '--description', description],
        { ...io, stdinIsTty: false, readStdin: async () => 'The fact.' },
      );
    for (const [name, description] of [
      ['a\u0000b', 'plain'],
      ['plain', 'red \u001b[31mtext\u001b[0m'],
      ['bell\u0007', 'plain'],
      ['plain', 'c1 \u009b control'],
    ]) {
      const run = await add(name!, description!);
      expect(run.code, JSON.stringify([name, description])).toBe(2);
      expect(run.stderr).toMatch(/cannot hold control characters/);
    }
    expect(readdirSync(dir).filter((f) => f.endsWith('.md'))).toEqual([]);
    // A tab and non-ASCII text are plain text.
    expect((await add('Tabs\tand café', 'Düsseldorf office, 東京 team')).code).toBe(0);
    expect(
      checkMemoryInput({ name: 'x', description: 'y\u001b', type: 'user', body: 'z' }).errors,
    ).toHaveLength(1);
  });

  it('a --cwd that is not a directory is refused before any memory directory is made for it', async () => {
    const io = testIo();
    const typo = join(io.homedir, 'no-such-project');
    for (const argv of [
      ['init', '--cwd', typo],
      ['add', '--cwd', typo, '--type', 'user', '--name', 'n', '--description', 'd', '--body', 'b'],
      ['list', '--cwd', typo, '--json'],
      ['--cwd', typo, 'path'],
    ]) {
      const run = await runCaptured(argv, io);
      expect({ argv, code: run.code }).toEqual({ argv, code: 3 });
      expect(run.stderr).toContain(`No such directory: ${typo}`);
    }
    writeFileSync(join(io.homedir, 'notes.txt'), 'x');
    const file = await runCaptured(['init', '--cwd', join(io.homedir, 'notes.txt')], io);
    expect(file.code).toBe(3);
    expect(file.stderr).toContain('Not a directory');
    expect(existsSync(join(io.homedir, '.engram', 'projects'))).toBe(false);
  });

  it('show, revoke and rm take the path add and list print, in either layer', async () => {
    const io = testIo();
    const save = async (scope: string, name: string) =>
      JSON.parse(
        (
          await runCaptured(
            [
              'add',
              '--scope',
              scope,
              '--type',
              'user',
              '--name',
              name,
              '--description',
              `about ${name}`,
              '--body',
              name,
              '--json',
            ],
            io,
          )
        ).stdout,
      ).path as string;
    const project = await save('project', 'tabs');
    const user = await save('user', 'vim');
    const shown = await runCaptured(['show', user, '--json'], io);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ file: 'vim.md', layer: 'user' });
    expect((await runCaptured(['show', project, '--json'], io)).code).toBe(0);
    const revoked = await runCaptured(['revoke', user, '--reason', 'moved to helix'], io);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(readFileSync(user, 'utf8')).toMatch(/status: revoked/);
    const rm = await runCaptured(['rm', project, '--json'], io);
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse(rm.stdout)).toMatchObject({ file: 'tabs.md', removedFile: true });
    expect((await runCaptured(['rm', user, '--scope', 'user'], io)).code).toBe(0);
    // A path outside every memory directory stays refused as a path, never read.
    const outside = join(io.homedir, 'elsewhere.md');
    writeFileSync(outside, '---\nname: x\ndescription: y\ntype: user\n---\nz\n');
    const refused = await runCaptured(['show', outside], io);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
  });

  it('revoke records a successor not written yet by the file add would give its name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-cli-'));
    const io = testIo();
    const add = (name: string) =>
      runCaptured(
        [
          'add',
          '--dir',
          dir,
          '--type',
          'user',
          '--name',
          name,
          '--description',
          name,
          '--body',
          name,
        ],
        io,
      );
    await add('Old editor');
    const revoked = await runCaptured(
      [
        'revoke',
        'Old editor',
        '--dir',
        dir,
        '--reason',
        'moved',
        '--superseded-by',
        'New editor',
        '--json',
      ],
      io,
    );
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout).supersededBy).toBe('new-editor.md');
    expect(revoked.stderr).toMatch(/new-editor\.md does not exist \(yet\)/);
    await add('New editor');
    const doctor = await runCaptured(['doctor', '--dir', dir, '--json'], io);
    const kinds = JSON.parse(doctor.stdout).findings.map((f: { kind: string }) => f.kind);
    expect(kinds).not.toContain('superseded_by_missing');
  });

  it('path --json reports the source and the carve-out', async () => {
    const io = testIo();
    const def = JSON.parse((await runCaptured(['path', '--json'], io)).stdout);
    expect(Object.keys(def).sort()).toEqual(['path', 'source', 'writeWithoutPrompt']);
    expect(def).toMatchObject({ source: 'default', writeWithoutPrompt: true });
    const envIo = testIo({ env: { ...io.env, ENGRAM_MEMORY_DIR: '/srv/agent-mem' } });
    expect(JSON.parse((await runCaptured(['path', '--json'], envIo)).stdout)).toEqual({
      path: '/srv/agent-mem',
      source: 'env',
      writeWithoutPrompt: false,
    });
    const flag = JSON.parse(
      (await runCaptured(['path', '--json', '--memory-dir', '/srv/flag-mem'], io)).stdout,
    );
    expect(flag).toEqual({ path: '/srv/flag-mem', source: 'flag', writeWithoutPrompt: true });
    const bad = await runCaptured(['path', '--memory-dir', '~'], io);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--memory-dir flag/);
  });
});
