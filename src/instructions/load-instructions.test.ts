import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngramEnvironment } from '../config/index.js';
import {
  clearInstructionsCache,
  type InstructionsResult,
  invalidateInstructions,
  LARGE_FILE_CHARS,
  loadInstructions,
  MAX_FILE_BYTES,
  readInstructions,
  rulesFor,
} from './index.js';

interface Fixture {
  root: string;
  home: string;
  managed: string;
  env: (cwd: string) => EngramEnvironment;
  write: (files: Record<string, string>) => void;
}

/** A temp folder with its own home and managed folder; paths are real (macOS /tmp is a link). */
function fixture(): Fixture {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'engram-instr-')));
  const home = join(root, 'home');
  const managed = join(root, 'managed');
  mkdirSync(home, { recursive: true });
  const write = (files: Record<string, string>) => {
    for (const [rel, text] of Object.entries(files)) {
      const path = join(root, rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  };
  const env = (cwd: string): EngramEnvironment => ({
    cwd: join(root, cwd),
    homedir: home,
    env: { ENGRAM_HOME: join(home, '.engram'), ENGRAM_MANAGED_DIR: managed },
  });
  return { root, home, managed, env, write };
}

/** Files inside the fixture only: ancestors of the temp folder are not ours to assert on. */
function paths(result: InstructionsResult, f: Fixture): string[] {
  return result.files
    .filter((x) => x.path.startsWith(f.root))
    .map((x) => x.path.slice(f.root.length + 1));
}

const load = (f: Fixture, cwd: string) => readInstructions(f.env(cwd));

describe('discovery order', () => {
  it('loads managed, user, then root → package, local after project in each folder', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'managed/AGENTS.md': 'managed agents',
      'managed/CLAUDE.md': 'managed claude',
      'home/.engram/AGENTS.md': 'user agents',
      'home/.claude/CLAUDE.md': 'user claude',
      'repo/AGENTS.override.md': 'root override',
      'repo/CLAUDE.local.md': 'root local',
      'repo/AGENTS.md': 'root agents',
      'repo/CLAUDE.md': 'root claude',
      'repo/.claude/CLAUDE.md': 'root dot-claude',
      'repo/.claude/rules/b/deep.md': 'rule deep',
      'repo/.claude/rules/a.md': 'rule a',
      'repo/packages/app/CLAUDE.local.md': 'app local',
      'repo/packages/app/CLAUDE.md': 'app claude',
      'repo/packages/app/AGENTS.md': 'app agents',
    });
    const result = await load(f, 'repo/packages/app');
    expect(paths(result, f)).toEqual([
      'managed/AGENTS.md',
      'managed/CLAUDE.md',
      'home/.engram/AGENTS.md',
      'home/.claude/CLAUDE.md',
      'repo/AGENTS.md',
      'repo/CLAUDE.md',
      'repo/.claude/CLAUDE.md',
      'repo/.claude/rules/a.md',
      'repo/.claude/rules/b/deep.md',
      'repo/CLAUDE.local.md',
      'repo/AGENTS.override.md',
      'repo/packages/app/AGENTS.md',
      'repo/packages/app/CLAUDE.md',
      'repo/packages/app/CLAUDE.local.md',
    ]);
    const types = result.files.filter((x) => x.path.startsWith(f.root)).map((x) => x.type);
    expect(types.slice(0, 4)).toEqual(['managed', 'managed', 'user', 'user']);
    expect(types.at(-1)).toBe('local');
    expect(types.at(-2)).toBe('project');
    // The prompt follows the same order, so the package's local file is read last.
    const order = [
      'managed agents',
      'user claude',
      'root agents',
      'root local',
      'app agents',
      'app local',
    ];
    const positions = order.map((t) => result.prompt.indexOf(t));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(result.prompt).toContain(`Contents of ${join(f.root, 'repo/CLAUDE.local.md')} (`);
  });

  it('loads a file reached twice once: symlink, @include, same folder', async () => {
    const f = fixture();
    f.write({
      'repo/AGENTS.md': 'shared rules',
      'repo/sub/CLAUDE.md': '@../AGENTS.md\n\nclaude extras',
    });
    symlinkSync('AGENTS.md', join(f.root, 'repo/CLAUDE.md'));
    const result = await load(f, 'repo/sub');
    expect(paths(result, f)).toEqual(['repo/AGENTS.md', 'repo/sub/CLAUDE.md']);
    expect(result.prompt.split('shared rules')).toHaveLength(2);
  });

  it('loads AGENTS.md once when CLAUDE.md in the same folder says @AGENTS.md', async () => {
    const f = fixture();
    f.write({ 'repo/AGENTS.md': 'shared rules', 'repo/CLAUDE.md': '@AGENTS.md\n\nclaude extras' });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/AGENTS.md', 'repo/CLAUDE.md']);
    expect(result.files.every((x) => x.parent === undefined)).toBe(true);
    expect(result.prompt.split('shared rules')).toHaveLength(2);
  });

  it('reads only the configured file names (user settings), and ignores them in project settings', async () => {
    const f = fixture();
    f.write({
      'home/.engram/settings.json': JSON.stringify({ instructionFiles: ['AGENTS.md'] }),
      'repo/.engram/settings.json': JSON.stringify({ instructionFiles: ['CLAUDE.md'] }),
      'repo/AGENTS.md': 'a',
      'repo/CLAUDE.md': 'c',
      'home/.claude/CLAUDE.md': 'user c',
    });
    mkdirSync(join(f.root, 'repo/.git'));
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/AGENTS.md']);
    expect(
      result.reports.some((r) => r.kind === 'settings' && r.message.includes('project settings')),
    ).toBe(true);
  });

  it('excludes user/project/local files by glob but never managed files', async () => {
    const f = fixture();
    f.write({
      'managed/AGENTS.md': 'policy',
      'home/.claude/CLAUDE.md': 'user',
      'repo/vendor/lib/CLAUDE.md': 'vendored',
      'repo/CLAUDE.md': 'kept',
    });
    f.write({
      'home/.engram/settings.json': JSON.stringify({
        instructionExcludes: ['**/vendor/**', '~/.claude/**', `${f.managed}/**`],
      }),
    });
    const result = await load(f, 'repo/vendor/lib');
    expect(paths(result, f)).toEqual(['managed/AGENTS.md', 'repo/CLAUDE.md']);
    expect(result.reports.filter((r) => r.kind === 'excluded')).toHaveLength(2);
  });
});

describe('@includes', () => {
  it('ignores @ inside fenced code and code spans, includes from prose, lists and tables', async () => {
    const f = fixture();
    f.write({
      'repo/CLAUDE.md': [
        'Read @docs/prose.md first.',
        '',
        '```',
        '@docs/fenced.md',
        '```',
        '',
        'Not this: `@docs/span.md`.',
        '',
        '- and @./docs/list.md#section',
        '',
        '| a |',
        '|---|',
        '| @docs/table.md |',
        '',
        'Ask @alice, mail me@example.com.',
      ].join('\n'),
      'repo/docs/prose.md': 'prose',
      'repo/docs/fenced.md': 'fenced',
      'repo/docs/span.md': 'span',
      'repo/docs/list.md': 'list',
      'repo/docs/table.md': 'table',
    });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual([
      'repo/docs/prose.md',
      'repo/docs/list.md',
      'repo/docs/table.md',
      'repo/CLAUDE.md',
    ]);
    const included = result.files.find((x) => x.path.endsWith('prose.md'));
    expect(included?.parent).toBe(join(f.root, 'repo/CLAUDE.md'));
    expect(included?.depth).toBe(1);
    expect(included?.type).toBe('project');
    expect(result.prompt).toContain(`included by ${join(f.root, 'repo/CLAUDE.md')}`);
    expect(result.reports).toEqual([]);
  });

  it('stops a cycle A → B → A silently, loading each once', async () => {
    const f = fixture();
    f.write({ 'repo/CLAUDE.md': 'A says @b.md', 'repo/b.md': 'B says @CLAUDE.md' });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/b.md', 'repo/CLAUDE.md']);
    expect(result.reports).toEqual([]);
  });

  it('loads includes nested 5 deep and refuses the 6th level', async () => {
    const f = fixture();
    const files: Record<string, string> = { 'repo/CLAUDE.md': 'root @d1.md' };
    for (let i = 1; i <= 6; i++) files[`repo/d${i}.md`] = `level ${i} @d${i + 1}.md`;
    f.write(files);
    const result = await load(f, 'repo');
    const loaded = paths(result, f);
    expect(loaded).toContain('repo/d5.md');
    expect(loaded).not.toContain('repo/d6.md');
    expect(result.files.find((x) => x.path.endsWith('d5.md'))?.depth).toBe(5);
    const deep = result.reports.find((r) => r.kind === 'include-too-deep');
    expect(deep?.path).toBe(join(f.root, 'repo/d6.md'));
    expect(result.prompt).not.toContain('level 6');
  });

  it('never includes a binary file such as .png', async () => {
    const f = fixture();
    f.write({
      'repo/CLAUDE.md': 'Logo: @logo.png and @notes.txt',
      'repo/notes.txt': 'plain notes',
    });
    writeFileSync(join(f.root, 'repo/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/notes.txt', 'repo/CLAUDE.md']);
    expect(result.reports.map((r) => r.kind)).toEqual(['include-not-text']);
    expect(result.prompt).not.toContain('PNG');
  });

  it('refuses @../../../../etc/hostname from a project file, with a report', async () => {
    const f = fixture();
    f.write({ 'repo/CLAUDE.md': 'Sneaky: @../../../../etc/hostname' });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/CLAUDE.md']);
    expect(result.files.some((x) => x.path === '/etc/hostname')).toBe(false);
    const refused = result.reports.find((r) => r.kind === 'refused');
    expect(refused?.path).toBe('/etc/hostname');
    expect(refused?.parent).toBe(join(f.root, 'repo/CLAUDE.md'));
    expect(refused?.severity).toBe('warning');
  });

  it('keeps a project file inside the project: home includes need the user to list them', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'repo/CLAUDE.md': [
        'Mine: @~/prefs/me.md and @~/.claude/team.md',
        '@~/Documents/taxes.md',
        '@../home/prefs/relative.md',
        '@docs/inside.md',
      ].join('\n'),
      'repo/docs/inside.md': 'inside the project',
      'home/prefs/me.md': 'PREFS-OUTSIDE',
      'home/prefs/relative.md': 'RELATIVE-OUTSIDE',
      'home/.claude/team.md': 'DOT-CLAUDE-OUTSIDE',
      'home/Documents/taxes.md': 'DOCUMENTS-OUTSIDE',
    });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/docs/inside.md', 'repo/CLAUDE.md']);
    expect(result.prompt).not.toMatch(/OUTSIDE/);
    const refused = result.reports.filter((r) => r.kind === 'refused');
    expect(refused.map((r) => r.path.slice(f.home.length + 1))).toEqual([
      'prefs/me.md',
      '.claude/team.md',
      'Documents/taxes.md',
      'prefs/relative.md',
    ]);
    // The report says why and how to allow it (Claude Code would ask; engram reads the setting).
    expect(refused[0]?.message).toContain('outside the folders');
    expect(refused[0]?.message).toContain('allowExternalIncludes');
    expect(result.reports).toHaveLength(refused.length);
    // Listed in the user settings, the folder opens.
    f.write({
      'home/.engram/settings.json': JSON.stringify({ allowExternalIncludes: ['~/prefs'] }),
    });
    const listed = await load(f, 'repo');
    expect(listed.prompt).toContain('PREFS-OUTSIDE');
    expect(listed.prompt).toContain('RELATIVE-OUTSIDE');
    expect(listed.prompt).not.toContain('DOCUMENTS-OUTSIDE');
  });

  it("lets the user's own CLAUDE.md include from home, never the credential deny-list", async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'home/.claude/CLAUDE.md': [
        'Mine: @~/prefs/me.md and @team.md',
        '@~/.ssh/config.txt',
        '@~/.claude/settings.json',
        '@~/.claude/.credentials.json',
        '@~/.aws/notes.md',
        '@~/.engram/settings.json',
        '@~/.engram/projects/other-1234abcd/MEMORY.md',
      ].join('\n'),
      'home/prefs/me.md': 'private prefs',
      'home/.claude/team.md': 'team notes in dot-claude',
      'home/.ssh/config.txt': 'SSH-SECRET',
      'home/.claude/settings.json': '{"env":{"ANTHROPIC_API_KEY":"CLAUDE-SETTINGS-SECRET"}}',
      'home/.claude/.credentials.json': 'CLAUDE-SECRET',
      'home/.aws/notes.md': 'AWS-SECRET',
      'home/.engram/settings.json': '{"note":"ENGRAM-SETTINGS-SECRET"}',
      'home/.engram/projects/other-1234abcd/MEMORY.md': 'OTHER-PROJECT-SECRET',
    });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual([
      'home/prefs/me.md',
      'home/.claude/team.md',
      'home/.claude/CLAUDE.md',
    ]);
    expect(result.prompt).not.toMatch(/SECRET/);
    const refused = result.reports.filter((r) => r.kind === 'refused');
    expect(refused.map((r) => r.path.slice(f.home.length + 1))).toEqual([
      '.ssh/config.txt',
      '.claude/settings.json',
      '.claude/.credentials.json',
      '.aws/notes.md',
      '.engram/settings.json',
      '.engram/projects/other-1234abcd/MEMORY.md',
    ]);
    expect(refused[0]?.message).toContain('.ssh holds credentials');
    expect(refused.every((r) => r.severity === 'warning')).toBe(true);
  });

  it('opens a private part of home only when the user names that folder', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'repo/CLAUDE.md': '@~/.config/team/rules.md and @~/.ssh/config.txt',
      'home/.config/team/rules.md': 'team rules from dot-config',
      'home/.ssh/config.txt': 'SSH-SECRET',
    });
    const setting = (value: unknown) =>
      f.write({
        'home/.engram/settings.json': JSON.stringify({ allowExternalIncludes: value }),
      });
    // Neither "everywhere" nor the whole home opens ~/.ssh to a cloned repository.
    for (const broad of [true, ['~'], [f.root]]) {
      setting(broad);
      const result = await load(f, 'repo');
      expect(result.prompt).not.toContain('team rules');
      expect(result.prompt).not.toContain('SSH-SECRET');
      expect(result.reports.map((r) => r.kind)).toEqual(['refused', 'refused']);
    }
    setting(['~/.config/team']);
    const named = await load(f, 'repo');
    expect(named.prompt).toContain('team rules from dot-config');
    expect(named.prompt).not.toContain('SSH-SECRET');
  });

  it('lets a project that lives in a hidden home folder include its own files', async () => {
    const f = fixture();
    mkdirSync(join(f.home, '.dotfiles/.git'), { recursive: true });
    f.write({
      'home/.dotfiles/CLAUDE.md': '@docs/style.md',
      'home/.dotfiles/docs/style.md': 'dotfiles style',
    });
    const result = await load(f, 'home/.dotfiles');
    expect(result.prompt).toContain('dotfiles style');
    expect(result.reports).toEqual([]);
  });

  it('refuses a checked-in symlink that points outside the project', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({ 'home/.config/tool/token.md': 'SECRET' });
    symlinkSync(join(f.home, '.config/tool/token.md'), join(f.root, 'repo/CLAUDE.md'));
    const result = await load(f, 'repo');
    expect(result.prompt).not.toContain('SECRET');
    expect(result.reports.map((r) => r.kind)).toEqual(['refused']);
  });
});

describe('processing', () => {
  it('strips HTML comments but keeps one inside a fenced block', async () => {
    const f = fixture();
    f.write({
      'repo/CLAUDE.md': [
        '# Rules',
        '<!-- author note: remove before launch -->',
        'Use tabs.',
        '',
        '```html',
        '<!-- example comment -->',
        '```',
      ].join('\n'),
    });
    const result = await load(f, 'repo');
    expect(result.prompt).not.toContain('author note');
    expect(result.prompt).toContain('<!-- example comment -->');
    expect(result.prompt).toContain('Use tabs.');
    expect(result.files.find((x) => x.path.endsWith('CLAUDE.md'))?.contentDiffersFromDisk).toBe(
      true,
    );
  });

  it('loads a 50,000-character file and reports it as too large', async () => {
    const f = fixture();
    f.write({ 'repo/CLAUDE.md': 'x'.repeat(50_000), 'repo/AGENTS.md': 'small' });
    const result = await load(f, 'repo');
    const big = result.files.find((x) => x.path.endsWith('CLAUDE.md'));
    expect(big?.tooLarge).toBe(true);
    expect(big?.chars).toBe(50_000);
    expect(result.files.find((x) => x.path.endsWith('AGENTS.md'))?.tooLarge).toBe(false);
    expect(result.prompt).toContain('x'.repeat(50_000));
    const warning = result.reports.find((r) => r.kind === 'too-large');
    expect(warning?.path).toBe(join(f.root, 'repo/CLAUDE.md'));
    expect(warning?.message).toContain('50,000');
    expect(warning?.message).toContain(LARGE_FILE_CHARS.toLocaleString('en-US'));
  });

  it('skips and reports an unreadable file instead of throwing', async () => {
    const f = fixture();
    f.write({ 'repo/AGENTS.md': 'still here' });
    symlinkSync('CLAUDE.md', join(f.root, 'repo/CLAUDE.md')); // a loop: ELOOP, even for root
    mkdirSync(join(f.root, 'repo/.claude/CLAUDE.md'), { recursive: true }); // a folder, not a file
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/AGENTS.md']);
    expect(result.reports.map((r) => r.kind).sort()).toEqual(['not-a-file', 'unreadable']);
  });

  it('skips an include that is too big, a FIFO or readable by nobody, each with its report', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'repo/CLAUDE.md': '@big.md @pipe.md @locked.md @ok.md',
      'repo/big.md': 'x'.repeat(MAX_FILE_BYTES + 1),
      'repo/locked.md': 'LOCKED',
      'repo/ok.md': 'fine',
    });
    execFileSync('mkfifo', [join(f.root, 'repo/pipe.md')]);
    chmodSync(join(f.root, 'repo/locked.md'), 0o000);
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/ok.md', 'repo/CLAUDE.md']);
    expect(result.reports.map((r) => [r.kind, r.path.slice(f.root.length + 1)])).toEqual([
      ['skipped-too-big', 'repo/big.md'],
      ['not-a-file', 'repo/pipe.md'],
      ['unreadable', 'repo/locked.md'],
    ]);
    expect(result.prompt).not.toContain('LOCKED');
  });

  it('reports malformed settings and falls back to defaults', async () => {
    const f = fixture();
    f.write({ 'home/.engram/settings.json': '{ nope', 'repo/CLAUDE.md': 'ok' });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/CLAUDE.md']);
    expect(result.reports[0]?.kind).toBe('settings');
  });

  it('keeps the user excludes when a repository ships malformed settings', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'home/.engram/settings.json': JSON.stringify({ instructionExcludes: ['**/repo/CLAUDE.md'] }),
      'repo/.engram/settings.json': '{ broken',
      'repo/CLAUDE.md': 'excluded by the user',
      'repo/AGENTS.md': 'kept',
    });
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/AGENTS.md']);
    const warning = result.reports.find((r) => r.kind === 'settings');
    expect(warning?.path).toBe(join(f.root, 'repo/.engram/settings.json'));
    expect(warning?.severity).toBe('warning');
  });
});

describe('conditional rules', () => {
  it('applies a paths: rule to matching files only, relative to the folder holding .claude/', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'repo/.claude/rules/react.md':
        '---\npaths: ["src/components/**"]\n---\nUse function components. @react-extra.md',
      'repo/.claude/rules/react-extra.md': '---\npaths: ["**"]\n---\nHooks at top level.',
      'repo/.claude/rules/always.md': 'Always run the linter.',
    });
    const result = await load(f, 'repo');
    // `paths: ["**"]` is the same as no paths at all.
    expect(paths(result, f)).toEqual([
      'repo/.claude/rules/always.md',
      'repo/.claude/rules/react-extra.md',
    ]);
    expect(result.prompt).not.toContain('function components');
    const rule = result.conditionalRules.find((r) => r.path.endsWith('react.md'));
    expect(rule?.globs).toEqual(['src/components/**']);
    expect(rule?.baseDir).toBe(join(f.root, 'repo'));
    expect(rulesFor('src/components/Button.tsx', result).map((r) => r.path)).toEqual([rule?.path]);
    expect(rulesFor(join(f.root, 'repo/src/components/Button.tsx'), result)).toHaveLength(1);
    expect(rulesFor('src/lib/x.ts', result)).toEqual([]);
    expect(rulesFor(join(f.root, 'elsewhere/src/components/B.tsx'), result)).toEqual([]);
  });

  it('matches brace globs such as src/**/*.{ts,tsx} from a YAML list', async () => {
    const f = fixture();
    mkdirSync(join(f.root, 'repo/.git'), { recursive: true });
    f.write({
      'repo/.claude/rules/ts.md': '---\npaths:\n  - "src/**/*.{ts,tsx}"\n---\nStrict types.',
    });
    const result = await load(f, 'repo');
    expect(rulesFor('src/ui/Button.tsx', result)).toHaveLength(1);
    expect(rulesFor('src/lib/x.ts', result)).toHaveLength(1);
    expect(rulesFor('src/lib/x.js', result)).toEqual([]);
  });

  it('evaluates globs from a subfolder cwd against the rule folder, and user rules against cwd', async () => {
    const f = fixture();
    f.write({
      'repo/.claude/rules/api.md': '---\npaths:\n  - "src/api/**/*.ts"\n---\nValidate input.',
      'home/.claude/rules/tests.md': '---\npaths: "*.test.ts"\n---\nPrefer real temp dirs.',
    });
    const result = await load(f, 'repo/src');
    expect(rulesFor('api/users.ts', result).map((r) => r.type)).toEqual(['project']);
    expect(
      rulesFor('api/users.test.ts', result)
        .map((r) => r.type)
        .sort(),
    ).toEqual(['project', 'user']);
  });
});

describe('rules folders and line endings', () => {
  it('walks a rules folder with a symlink loop once, and reads CRLF files', async () => {
    const f = fixture();
    f.write({
      'repo/.claude/rules/a.md': 'rule a',
      'repo/.claude/rules/nested/b.md':
        '---\r\npaths: ["src/**"]\r\n---\r\nrule b\r\n<!-- gone -->\r\n',
    });
    symlinkSync('..', join(f.root, 'repo/.claude/rules/nested/loop'));
    const result = await load(f, 'repo');
    expect(paths(result, f)).toEqual(['repo/.claude/rules/a.md']);
    expect(result.conditionalRules.map((r) => r.path)).toEqual([
      join(f.root, 'repo/.claude/rules/nested/b.md'),
    ]);
    expect(result.conditionalRules[0]?.content).toBe('rule b\n');
    expect(rulesFor('src/x.ts', result)).toHaveLength(1);
  });

  it('lets the user allow every external include with allowExternalIncludes: true', async () => {
    const f = fixture();
    f.write({
      'home/.engram/settings.json': JSON.stringify({ allowExternalIncludes: true }),
      'repo/CLAUDE.md': '@../common/team.md',
      'common/team.md': 'team wide',
    });
    mkdirSync(join(f.root, 'repo/.git'));
    const result = await load(f, 'repo');
    expect(result.prompt).toContain('team wide');
    expect(result.reports).toEqual([]);
  });
});

describe('malformed rules', () => {
  it('warns when a rule frontmatter does not parse, and still loads its text', async () => {
    const f = fixture();
    f.write({ 'repo/.claude/rules/bad.md': '---\npaths: [src/**\n---\nKeep this.' });
    const result = await load(f, 'repo');
    expect(result.prompt).toContain('Keep this.');
    expect(result.reports.map((r) => r.kind)).toEqual(['bad-frontmatter']);
  });
});

describe('worktrees', () => {
  it('in a nested worktree, skips the main checkout CLAUDE.md but keeps its CLAUDE.local.md', async () => {
    const f = fixture();
    const main = join(f.root, 'main');
    f.write({
      'main/CLAUDE.md': 'main checked-in',
      'main/.gitignore': 'CLAUDE.local.md\n.claude/worktrees/\n',
    });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: main,
        stdio: 'pipe',
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
      });
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    git('worktree', 'add', '-q', '.claude/worktrees/wt');
    f.write({
      'main/CLAUDE.local.md': 'main local',
      'main/.claude/worktrees/wt/CLAUDE.md': 'worktree checked-in',
    });
    const result = await load(f, 'main/.claude/worktrees/wt');
    expect(paths(result, f)).toEqual([
      'main/CLAUDE.local.md',
      'main/.claude/worktrees/wt/CLAUDE.md',
    ]);
    expect(result.prompt).not.toContain('main checked-in');
    expect(result.reports.map((r) => r.kind)).toEqual(['worktree-skipped']);
  });
});

describe('cache', () => {
  it('serves one result per process until invalidated', async () => {
    const f = fixture();
    f.write({ 'repo/CLAUDE.md': 'first' });
    const environment = f.env('repo');
    const a = await loadInstructions({ environment });
    f.write({ 'repo/CLAUDE.md': 'second' });
    expect(await loadInstructions({ environment })).toBe(a);
    expect((await loadInstructions({ environment, cache: false })).prompt).toContain('second');
    invalidateInstructions(environment, 'compact');
    const b = await loadInstructions({ environment });
    expect(b.prompt).toContain('second');
    expect(b.loadReason).toBe('compact');
    clearInstructionsCache('settings_change');
    const c = await loadInstructions({ environment });
    expect(c).not.toBe(b);
    expect(c.loadReason).toBe('settings_change');
    expect(a.loadReason).toBe('session_start');
  });
});
