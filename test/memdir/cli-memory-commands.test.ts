import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engram, indexTargets, json, mdFiles, memoryFile, sandbox } from './support.js';

describe('the CLI on a memory directory', () => {
  it('init, add (flag, file, stdin), list, show, rm, with --json and --dir', () => {
    const s = sandbox();
    const dir = join(s.root, 'mem');
    const init = json(engram(s, ['init', '--dir', dir, '--json']));
    expect(init.path).toBe(dir);
    expect(existsSync(join(dir, 'MEMORY.md'))).toBe(true);

    const a = engram(s, [
      'add',
      '--dir',
      dir,
      '--json',
      '--type',
      'user',
      '--name',
      'Rolle der Nutzerin',
      '--description',
      'Die Nutzerin ist Embedded-Entwicklerin und neu in Rust',
      '--body',
      'Sie schreibt seit zehn Jahren C für Mikrocontroller.',
    ]);
    expect(a.code, a.stderr).toBe(0);
    const added = json(a);
    expect(typeof added.file).toBe('string');
    const bodyFile = join(s.root, 'body.txt');
    writeFileSync(bodyFile, 'Flash via probe-rs, never openocd.\n**Why:** the board bricks\n');
    const b = engram(s, [
      'add',
      '--dir',
      dir,
      '--type',
      'feedback',
      '--name',
      'flashing tool',
      '--description',
      'Flash boards with probe-rs only',
      '--body-file',
      bodyFile,
    ]);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).not.toMatch(/Why/);
    const c = engram(
      s,
      [
        'add',
        '--dir',
        dir,
        '--type',
        'reference',
        '--name',
        'CI dashboard',
        '--description',
        'Nightly HIL results live on the Buildkite board',
      ],
      { input: 'https://buildkite.example/hil\n' },
    );
    expect(c.code, c.stderr).toBe(0);

    const files = mdFiles(dir);
    expect(files).toHaveLength(3);
    expect(indexTargets(dir).sort()).toEqual(files);
    for (const line of readFileSync(join(dir, 'MEMORY.md'), 'utf8').trim().split('\n')) {
      expect(line).toMatch(/^- \[.+\]\(.+\.md\) — .+/);
      expect(line.length).toBeLessThanOrEqual(160);
    }

    const list = engram(s, ['list', '--dir', dir]);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines)
      expect(l).toMatch(
        /^- \[(user|feedback|reference)\] \S+\.md \(\d{4}-\d\d-\d\dT[\d:.]+Z\): .+/,
      );
    expect(list.stdout).toContain('Nightly HIL results live on the Buildkite board');
    const listed = json<{ memories: Array<Record<string, unknown>> }>(
      engram(s, ['list', '--dir', dir, '--json']),
    );
    expect(listed.memories).toHaveLength(3);

    const refFile = files.find((f) => readFileSync(join(dir, f), 'utf8').includes('buildkite'));
    expect(refFile).toBeDefined();
    const shown = engram(s, ['show', refFile!, '--dir', dir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('https://buildkite.example/hil');
    const shownJson = json(engram(s, ['show', refFile!, '--dir', dir, '--json']));
    expect(shownJson.type).toBe('reference');
    expect(String(shownJson.body)).toContain('https://buildkite.example/hil');

    // Removing takes the file and its pointer together.
    const rm = engram(s, ['rm', refFile!, '--dir', dir, '--json']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(existsSync(join(dir, refFile!))).toBe(false);
    expect(indexTargets(dir)).not.toContain(refFile);
    expect(mdFiles(dir)).toHaveLength(2);
    // Unknown names are errors, not silent successes.
    expect(engram(s, ['rm', 'does-not-exist.md', '--dir', dir]).code).not.toBe(0);
    expect(engram(s, ['show', 'does-not-exist.md', '--dir', dir]).code).not.toBe(0);
    // Options before the command work too.
    expect(engram(s, ['--dir', dir, 'list']).stdout.trim().split('\n')).toHaveLength(2);
  });

  it('add refuses a missing description and bad types, and warns when feedback/project lack **Why:**', () => {
    const s = sandbox();
    const dir = join(s.root, 'mem');
    const noDesc = engram(s, [
      'add',
      '--dir',
      dir,
      '--type',
      'project',
      '--name',
      'freeze',
      '--body',
      'Release freeze.',
    ]);
    expect(noDesc.code).not.toBe(0);
    expect(noDesc.stderr).toMatch(/description/i);
    const badType = engram(s, [
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
      'b',
    ]);
    expect(badType.code).not.toBe(0);
    expect(existsSync(dir) ? mdFiles(dir) : []).toEqual([]);
    const noWhy = engram(s, [
      'add',
      '--dir',
      dir,
      '--type',
      'project',
      '--name',
      'Release freeze',
      '--description',
      'No merges to main during the 4.2 release week',
      '--body',
      'Only hotfixes merge.',
    ]);
    expect(noWhy.code, noWhy.stderr).toBe(0);
    expect(noWhy.stderr).toMatch(/Why/);
    expect(mdFiles(dir)).toHaveLength(1);
  });

  it('a Claude Code-format directory lists, shows and audits as it is', () => {
    const s = sandbox();
    const dir = join(s.root, '.claude', 'projects', '-srv-firmware', 'memory');
    mkdirSync(dir, { recursive: true });
    memoryFile(
      dir,
      'user_background.md',
      {
        name: 'user_background',
        description: 'Embedded C developer learning Rust; explain ownership with pointer analogies',
        type: 'user',
        originSessionId: '9a4e1b7c-0d3f-4e2a-8c61-5b7d2e9f1a03',
      },
      'Ten years of C on Cortex-M.\n',
      1_760_000_000,
    );
    memoryFile(
      dir,
      'feedback_unsafe.md',
      {
        name: 'feedback_unsafe',
        description: 'Every unsafe block needs a SAFETY comment',
        type: 'feedback',
      },
      'Write `// SAFETY:` above each unsafe block.\n\n**Why:** reviewer rejected PR 212 without them\n**How to apply:** any unsafe code\n',
      1_760_100_000,
    );
    memoryFile(
      dir,
      'project_hil_rig.md',
      {
        name: 'project_hil_rig',
        description: 'HIL rig is booked Tuesdays 2026-04-07 onward',
        type: 'project',
      },
      'Book early.\n**Why:** one rig for three teams\n',
      1_760_200_000,
    );
    memoryFile(
      dir,
      'reference_datasheets.md',
      {
        name: 'reference_datasheets',
        description: 'Datasheets for the STM32H7 live in the wiki under /hw/stm32',
        type: 'reference',
      },
      'See wiki.\n',
      1_760_300_000,
    );
    writeFileSync(
      join(dir, 'MEMORY.md'),
      [
        '- [User background](user_background.md) — Embedded C dev learning Rust',
        '- [Unsafe needs SAFETY](feedback_unsafe.md) — SAFETY comment on every unsafe block',
        '- [HIL rig schedule](project_hil_rig.md) — rig booked Tuesdays',
        '- [Datasheets](reference_datasheets.md) — STM32H7 datasheets in the wiki',
        '',
      ].join('\n'),
    );
    const list = engram(s, ['list', '--dir', dir]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual([
      `- [reference] reference_datasheets.md (${new Date(1_760_300_000_000).toISOString()}): Datasheets for the STM32H7 live in the wiki under /hw/stm32`,
      `- [project] project_hil_rig.md (${new Date(1_760_200_000_000).toISOString()}): HIL rig is booked Tuesdays 2026-04-07 onward`,
      `- [feedback] feedback_unsafe.md (${new Date(1_760_100_000_000).toISOString()}): Every unsafe block needs a SAFETY comment`,
      `- [user] user_background.md (${new Date(1_760_000_000_000).toISOString()}): Embedded C developer learning Rust; explain ownership with pointer analogies`,
    ]);
    const show = json(engram(s, ['show', 'feedback_unsafe.md', '--dir', dir, '--json']));
    expect(show.type).toBe('feedback');
    expect(String(show.body)).toContain('**Why:** reviewer rejected PR 212');
    const audit = engram(s, ['audit', '--dir', dir, '--json']);
    expect(audit.code, audit.stdout).toBe(0);
    expect(json(audit)).toMatchObject({ ok: true, problems: [] });
    expect(engram(s, ['index', '--check', '--dir', dir]).code).toBe(0);
  });

  it('audit and index --check/--rebuild name each problem and exit 1', () => {
    const s = sandbox();
    const dir = join(s.root, 'messy');
    mkdirSync(dir);
    memoryFile(
      dir,
      'good.md',
      { name: 'good', description: 'a fine memory', type: 'reference' },
      'ok\n',
    );
    memoryFile(
      dir,
      'lonely.md',
      { name: 'lonely', description: 'no index line points here', type: 'user' },
      'x\n',
    );
    memoryFile(dir, 'vague.md', { name: 'vague', type: 'user' }, 'no description\n');
    memoryFile(dir, 'odd.md', { name: 'odd', description: 'strange type', type: 'opinion' }, 'x\n');
    writeFileSync(
      join(dir, 'MEMORY.md'),
      '- [Good](good.md) — fine\n- [Gone](vanished.md) — deleted by hand\n- [Vague](vague.md)\n- [Odd](odd.md) — odd\n',
    );
    const audit = engram(s, ['audit', '--dir', dir, '--json']);
    expect(audit.code).toBe(1);
    const report = json<{ ok: boolean; problems: Array<{ kind: string; file: string }> }>(audit);
    expect(report.ok).toBe(false);
    const got = report.problems.map((p) => `${p.kind}:${p.file}`).sort();
    expect(got).toEqual(
      [
        'dangling_pointer:vanished.md',
        'missing_description:vague.md',
        'orphan:lonely.md',
        'unknown_type:odd.md',
      ].sort(),
    );
    const plain = engram(s, ['audit', '--dir', dir]);
    expect(plain.code).toBe(1);
    for (const f of ['lonely.md', 'vanished.md', 'vague.md', 'odd.md'])
      expect(plain.stdout).toContain(f);

    expect(engram(s, ['index', '--check', '--dir', dir]).code).toBe(1);
    const rebuilt = engram(s, ['index', '--rebuild', '--dir', dir, '--json']);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(indexTargets(dir).sort()).toEqual(['good.md', 'lonely.md', 'odd.md', 'vague.md']);
    expect(engram(s, ['index', '--check', '--dir', dir]).code).toBe(0);
  });

  it('a missing frontmatter close within 30 lines or an unknown type degrades, never throws', () => {
    const s = sandbox();
    const dir = join(s.root, 'odd');
    mkdirSync(dir);
    const late = `---\n${Array.from({ length: 31 }, (_, i) => `k${i}: v`).join('\n')}\ndescription: too late\ntype: user\n---\nbody\n`;
    writeFileSync(join(dir, 'late.md'), late);
    memoryFile(dir, 'typeless.md', { name: 'typeless', description: 'has no type' }, 'b\n');
    const list = json<{ memories: Array<{ file: string; type: string; description: unknown }> }>(
      engram(s, ['list', '--dir', dir, '--json']),
    );
    const byFile = Object.fromEntries(list.memories.map((m) => [m.file, m]));
    expect(byFile['late.md']?.type).toBe('unknown');
    expect(byFile['late.md']?.description ?? null).toBeNull();
    expect(byFile['typeless.md']?.type).toBe('unknown');
    expect(byFile['typeless.md']?.description).toBe('has no type');
  });
});
