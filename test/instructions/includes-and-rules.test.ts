import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instructions, json, rel, sandbox } from './support.js';

describe('@ includes', () => {
  it('fences, code spans, cycles, depth, binary and outside-the-project includes', () => {
    const s = sandbox();
    const proj = join(s.root, 'a', 'b', 'proj');
    s.write('home/team/tone.md', 'Tone: friendly but brief.');
    // Outside the project, so loaded only because the user's own settings list the folder (as
    // Claude Code asks before an external import); tests/security covers the refusal.
    s.write('engram-home/settings.json', JSON.stringify({ allowExternalIncludes: ['~/team'] }));
    s.write(
      'a/b/proj/CLAUDE.md',
      [
        '# Shop service',
        'API rules: @./guides/api.md#errors and @guides/naming.md',
        'Tone from home: @~/team/tone.md',
        `Absolute: @${proj}/guides/abs.md`,
        '',
        '```bash',
        'echo @guides/in-fence.md',
        '```',
        '',
        'Inline `@guides/in-span.md` is code.',
        'Diagram: @guides/arch.png',
        'Host name: @../../../../etc/hostname',
        'Loop: @loops/ping.md',
        'Chain: @chain/c1.md',
        '',
      ].join('\n'),
    );
    s.write('a/b/proj/guides/api.md', 'Errors are RFC 9457 problem documents.');
    s.write('a/b/proj/guides/naming.md', 'snake_case columns.');
    s.write('a/b/proj/guides/abs.md', 'Absolute include works.');
    s.write('a/b/proj/guides/in-fence.md', 'FENCED-INCLUDE-LOADED');
    s.write('a/b/proj/guides/in-span.md', 'SPAN-INCLUDE-LOADED');
    writeFileSync(
      s.write('a/b/proj/guides/arch.png', ''),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
    );
    s.write('a/b/proj/loops/ping.md', 'PING @pong.md');
    s.write('a/b/proj/loops/pong.md', 'PONG @ping.md');
    for (let i = 1; i <= 7; i++)
      s.write(`a/b/proj/chain/c${i}.md`, `CHAIN-LEVEL-${i} @c${i + 1}.md`);

    const out = json(s, proj);
    const loaded = rel(s, out.files);
    expect(loaded).toContain('a/b/proj/guides/api.md');
    expect(loaded).toContain('a/b/proj/guides/naming.md');
    expect(loaded).toContain('home/team/tone.md');
    expect(loaded).toContain('a/b/proj/guides/abs.md');
    expect(out.prompt).not.toContain('FENCED-INCLUDE-LOADED');
    expect(out.prompt).not.toContain('SPAN-INCLUDE-LOADED');
    expect(loaded.filter((p) => p.endsWith('.png'))).toEqual([]);
    // Cycle: each once.
    expect(loaded.filter((p) => p === 'a/b/proj/loops/ping.md')).toHaveLength(1);
    expect(loaded.filter((p) => p === 'a/b/proj/loops/pong.md')).toHaveLength(1);
    // Depth: CLAUDE.md → c1 … c5 load (5 deep), c6 does not.
    for (let i = 1; i <= 5; i++) expect(out.prompt).toContain(`CHAIN-LEVEL-${i}`);
    expect(out.prompt).not.toContain('CHAIN-LEVEL-6');
    expect(out.reports.some((r) => r.path.endsWith('c6.md'))).toBe(true);
    // Includes load before the file that includes them, with their parent.
    const api = out.files.find((f) => f.path.endsWith('guides/api.md'));
    expect(api?.parent).toBe(join(proj, 'CLAUDE.md'));
    expect(loaded.indexOf('a/b/proj/guides/api.md')).toBeLessThan(
      loaded.indexOf('a/b/proj/CLAUDE.md'),
    );
    // Outside the project and home: refused, with a report that names it.
    expect(out.prompt).not.toMatch(/Contents of \/etc\/hostname/);
    const refused = out.reports.find((r) => r.path.endsWith('etc/hostname'));
    expect(refused?.severity).toBe('warning');
    expect(refused?.message).toMatch(/refus/i);
    // Without --json the reports go to stderr.
    const plain = instructions(s, proj);
    expect(plain.stderr).toMatch(/etc\/hostname/);
  });

  it('HTML comments vanish from the assembled text, except inside a fenced block', () => {
    const s = sandbox();
    s.write(
      'proj/AGENTS.md',
      [
        '# Build',
        '<!-- TODO(maintainers): rewrite after the Bazel move -->',
        'Run `bazel test //...`.',
        '',
        '```html',
        '<!-- template marker stays -->',
        '```',
        '',
      ].join('\n'),
    );
    const out = json(s, join(s.root, 'proj'));
    expect(out.prompt).not.toContain('rewrite after the Bazel move');
    expect(out.prompt).toContain('<!-- template marker stays -->');
    expect(out.prompt).toContain('Run `bazel test //...`.');
    expect(out.files[out.files.length - 1]?.contentDiffersFromDisk).toBe(true);
  });
});

describe('conditional rules', () => {
  it('paths: ["src/components/**"] applies to src/components/Button.tsx, not src/lib/x.ts (CLI and library)', async () => {
    const s = sandbox();
    const repo = join(s.root, 'web');
    mkdirSync(join(repo, '.git'), { recursive: true });
    s.write(
      'web/.claude/rules/frontend/components.md',
      '---\npaths: ["src/components/**"]\n---\nCOMPONENT-RULE: props are typed interfaces.\n',
    );
    s.write('web/.claude/rules/general.md', 'GENERAL-RULE: small PRs.');
    const base = json(s, repo);
    expect(base.prompt).toContain('GENERAL-RULE');
    expect(base.prompt).not.toContain('COMPONENT-RULE');
    expect(base.conditionalRules.map((r) => r.globs)).toEqual([['src/components/**']]);

    const hit = json(s, repo, ['--for', 'src/components/Button.tsx']);
    expect(hit.prompt).toContain('COMPONENT-RULE');
    expect(rel(s, hit.files)).toContain('web/.claude/rules/frontend/components.md');
    const miss = json(s, repo, ['--for', 'src/lib/x.ts']);
    expect(miss.prompt).not.toContain('COMPONENT-RULE');

    // From a subfolder, globs stay relative to the folder that holds .claude/.
    const fromSub = json(s, join(repo), ['--for', join(repo, 'src/components/Button.tsx')]);
    expect(fromSub.prompt).toContain('COMPONENT-RULE');

    const lib = await import('engram/instructions');
    const result = await lib.loadInstructions({
      environment: {
        cwd: repo,
        homedir: s.home,
        env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: s.managed },
      },
    });
    const names = (target: string) =>
      lib.rulesFor(target, result).map((r) => r.path.slice(repo.length + 1));
    expect(names('src/components/Button.tsx')).toEqual(['.claude/rules/frontend/components.md']);
    expect(names('src/lib/x.ts')).toEqual([]);
    // The short forms a host is likely to write: a cwd, and the result first.
    const short = await lib.loadInstructions({
      cwd: repo,
      homedir: s.home,
      env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: s.managed },
      cache: false,
    });
    expect(lib.rulesFor(short, 'src/components/Button.tsx')).toHaveLength(1);
    expect(lib.rulesFor(short, 'src/lib/x.ts')).toHaveLength(0);
  });
});

describe('rules that include rules', () => {
  it('a plain rule included by a paths: rule still loads everywhere; rules that include each other load once per target', () => {
    const s = sandbox();
    const repo = join(s.root, 'svc');
    s.write(
      'svc/.claude/rules/api.md',
      '---\npaths: ["api/**"]\n---\nAPI-RULE @shared.md @db.md\n',
    );
    s.write('svc/.claude/rules/db.md', '---\npaths: ["db/**"]\n---\nDB-RULE @api.md\n');
    s.write('svc/.claude/rules/shared.md', 'SHARED-RULE everywhere\n');
    const base = json(s, repo);
    expect(base.prompt).toContain('SHARED-RULE');
    expect(base.prompt).not.toContain('API-RULE');
    const forDb = json(s, repo, ['--for', 'db/schema.sql']);
    expect(forDb.prompt.split('DB-RULE').length).toBe(2);
    expect(forDb.prompt.split('SHARED-RULE').length).toBe(2);
    const forApi = json(s, repo, ['--for', 'api/handler.go']);
    expect(forApi.prompt.split('API-RULE').length).toBe(2);
    expect(forApi.prompt.split('SHARED-RULE').length).toBe(2);
    const paths = forApi.files.map((f) => f.path);
    expect(new Set(paths).size).toBe(paths.length);
  });
});
