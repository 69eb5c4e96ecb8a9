/**
 * Acceptance tests for issue 3 (L0 instruction files), written from the issue text alone: real
 * directory trees in temp folders, the built CLI as a child process with a throwaway HOME,
 * ENGRAM_HOME and managed dir, and the library through `engram/instructions`.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(join(ROOT, 'dist', 'instructions', 'index.js'))) {
    throw new Error('Acceptance tests drive the built package: run `npm run build` first.');
  }
});

interface Sandbox {
  root: string;
  home: string;
  engramHome: string;
  managed: string;
  env: NodeJS.ProcessEnv;
  write: (rel: string, text: string) => string;
}

function sandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'engram-acc3-')));
  const home = join(root, 'home');
  const engramHome = join(root, 'engram-home');
  const managed = join(root, 'managed');
  for (const d of [home, engramHome, managed]) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('ENGRAM_')) delete env[key];
  Object.assign(env, { HOME: home, ENGRAM_HOME: engramHome, ENGRAM_MANAGED_DIR: managed });
  const write = (rel: string, text: string) => {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  return { root, home, engramHome, managed, env, write };
}

interface FileJson {
  path: string;
  type: string;
  parent: string | null;
  globs: string[] | null;
  size: number;
  chars: number;
  tooLarge: boolean;
  contentDiffersFromDisk: boolean;
  content: string;
}
interface Out {
  files: FileJson[];
  conditionalRules: FileJson[];
  prompt: string;
  reports: Array<{ kind: string; severity: string; path: string; message: string }>;
}

function instructions(s: Sandbox, cwd: string, extra: string[] = []) {
  const r = spawnSync(process.execPath, [CLI, 'instructions', '--cwd', cwd, ...extra], {
    cwd: s.root,
    env: s.env,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(s: Sandbox, cwd: string, extra: string[] = []): Out {
  const r = instructions(s, cwd, ['--json', ...extra]);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Out;
}

/** Paths relative to the sandbox (files elsewhere on the machine are not ours to judge). */
function rel(s: Sandbox, files: FileJson[]): string[] {
  return files.filter((f) => f.path.startsWith(s.root)).map((f) => f.path.slice(s.root.length + 1));
}

describe('issue 3: discovery and order', () => {
  it('monorepo repo/packages/app: managed, user, then root → package, local after project', () => {
    const s = sandbox();
    s.write('managed/CLAUDE.md', 'Managed: never push to prod on Fridays.');
    s.write('managed/AGENTS.md', 'Managed: log every deploy.');
    s.write('engram-home/AGENTS.md', 'User: reply in British English.');
    s.write('home/.claude/CLAUDE.md', 'User: prefer pnpm.');
    mkdirSync(join(s.root, 'repo', '.git'), { recursive: true });
    s.write('repo/AGENTS.md', 'Root agents: Go 1.23 backend.');
    s.write('repo/CLAUDE.md', 'Root claude: run make lint.');
    s.write('repo/.claude/CLAUDE.md', 'Root dot-claude file.');
    s.write('repo/.claude/rules/db/migrations.md', 'Rule: migrations are reversible.');
    s.write('repo/CLAUDE.local.md', 'Root local: my sandbox DB is db-7.');
    s.write('repo/packages/app/AGENTS.md', 'App agents: Svelte 5.');
    s.write('repo/packages/app/CLAUDE.local.md', 'App local: port 5174.');
    s.write('repo/packages/app/AGENTS.override.md', 'App override: skip e2e locally.');
    s.write('repo/packages/app/.claude/rules/style.md', 'App rule: tabs.');

    const out = json(s, join(s.root, 'repo/packages/app'));
    expect(rel(s, out.files)).toEqual([
      'managed/AGENTS.md',
      'managed/CLAUDE.md',
      'engram-home/AGENTS.md',
      'home/.claude/CLAUDE.md',
      'repo/AGENTS.md',
      'repo/CLAUDE.md',
      'repo/.claude/CLAUDE.md',
      'repo/.claude/rules/db/migrations.md',
      'repo/CLAUDE.local.md',
      'repo/packages/app/AGENTS.md',
      'repo/packages/app/.claude/rules/style.md',
      'repo/packages/app/CLAUDE.local.md',
      'repo/packages/app/AGENTS.override.md',
    ]);
    const types = Object.fromEntries(
      out.files.map((f) => [f.path.slice(s.root.length + 1), f.type]),
    );
    expect(types['managed/CLAUDE.md']).toBe('managed');
    expect(types['home/.claude/CLAUDE.md']).toBe('user');
    expect(types['repo/CLAUDE.md']).toBe('project');
    expect(types['repo/packages/app/CLAUDE.local.md']).toBe('local');

    // The assembled section: an override instruction, then each file as "Contents of <path> (…):".
    const prompt = out.prompt;
    const firstContents = prompt.indexOf('Contents of ');
    expect(prompt.slice(0, firstContents)).toMatch(/overrid/i);
    let last = -1;
    for (const f of out.files) {
      const at = prompt.indexOf(`Contents of ${f.path} (`);
      expect(at, f.path).toBeGreaterThan(last);
      last = at;
    }
    expect(prompt.indexOf('Managed: log every deploy.')).toBeLessThan(
      prompt.indexOf('App override: skip e2e locally.'),
    );

    // Plain output: every file in order with type and size, then the section.
    const plain = instructions(s, join(s.root, 'repo/packages/app'));
    expect(plain.code).toBe(0);
    const appLocal = plain.stdout
      .split('\n')
      .find((l) => l.includes('packages/app/CLAUDE.local.md'));
    expect(appLocal).toMatch(/local/);
    expect(appLocal).toMatch(/\d+(\.\d+)? (B|KB)/);
    expect(plain.stdout.indexOf('repo/AGENTS.md')).toBeLessThan(
      plain.stdout.indexOf('packages/app/AGENTS.md'),
    );
    expect(plain.stdout).toContain('Root claude: run make lint.');
  });

  it('the same file reached twice loads once (symlink, @AGENTS.md inside CLAUDE.md)', () => {
    const s = sandbox();
    s.write('proj/AGENTS.md', 'Shared agent rules: use uv for Python.');
    s.write('proj/CLAUDE.md', 'Claude extras.\n@AGENTS.md\n');
    s.write('other/AGENTS.md', 'Other project rules.');
    symlinkSync(join(s.root, 'other/AGENTS.md'), join(s.root, 'other/CLAUDE.md'));
    const a = json(s, join(s.root, 'proj'));
    expect(a.files.filter((f) => f.content.includes('use uv for Python'))).toHaveLength(1);
    expect(a.prompt.split('use uv for Python').length).toBe(2);
    const b = json(s, join(s.root, 'other'));
    expect(b.prompt.split('Other project rules.').length).toBe(2);
  });

  it('configurable file names and user excludes (managed never excluded)', () => {
    const s = sandbox();
    s.write('managed/AGENTS.md', 'Managed stays.');
    s.write('proj/AGENTS.md', 'agents file');
    s.write('proj/CLAUDE.md', 'claude file');
    s.write('proj/vendor/lib/CLAUDE.md', 'vendored rules');
    s.write('engram-home/settings.json', JSON.stringify({ instructionFiles: ['AGENTS.md'] }));
    expect(rel(s, json(s, join(s.root, 'proj')).files)).toEqual([
      'managed/AGENTS.md',
      'proj/AGENTS.md',
    ]);
    s.write(
      'engram-home/settings.json',
      JSON.stringify({ instructionExcludes: ['**/vendor/**', `${s.root}/managed/**`] }),
    );
    const out = json(s, join(s.root, 'proj/vendor/lib'));
    expect(rel(s, out.files)).toEqual(['managed/AGENTS.md', 'proj/AGENTS.md', 'proj/CLAUDE.md']);
  });

  it('never throws on an unreadable entry: it is skipped and reported', () => {
    const s = sandbox();
    mkdirSync(join(s.root, 'proj/CLAUDE.md'), { recursive: true }); // a folder named like a file
    symlinkSync(join(s.root, 'nowhere.md'), join(s.root, 'proj/AGENTS.md')); // dangling link
    s.write('proj/CLAUDE.local.md', 'still loads');
    chmodSync(s.write('proj/AGENTS.override.md', 'LOCKED-AWAY'), 0o000); // unreadable, even for root
    const r = instructions(s, join(s.root, 'proj'), ['--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(rel(s, out.files)).toEqual(['proj/CLAUDE.local.md']);
    expect(out.reports.some((x) => x.path === join(s.root, 'proj/CLAUDE.md'))).toBe(true);
    expect(out.prompt).not.toContain('LOCKED-AWAY');
    const locked = out.reports.find((x) => x.path === join(s.root, 'proj/AGENTS.override.md'));
    expect(locked?.kind).toBe('unreadable');
  });
});

describe('issue 3: @ includes', () => {
  it('fences, code spans, cycles, depth, binary and outside-the-project includes', () => {
    const s = sandbox();
    const proj = join(s.root, 'a', 'b', 'proj');
    s.write('home/team/tone.md', 'Tone: friendly but brief.');
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

describe('issue 3: conditional rules', () => {
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

describe('issue 3: rules that include rules', () => {
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

describe('issue 3: worktrees, size, cache', () => {
  it('a nested worktree skips the main checkout CLAUDE.md but keeps its CLAUDE.local.md', () => {
    const s = sandbox();
    // A hand-made linked worktree, laid out as `git worktree add .claude/worktrees/feature` does.
    mkdirSync(join(s.root, 'main/.git/worktrees/feature'), { recursive: true });
    s.write('main/.git/HEAD', 'ref: refs/heads/main\n');
    s.write('main/.git/worktrees/feature/commondir', '../..\n');
    s.write('main/.git/worktrees/feature/HEAD', 'ref: refs/heads/feature\n');
    s.write('main/CLAUDE.md', 'MAIN-CHECKED-IN');
    s.write('main/CLAUDE.local.md', 'MAIN-LOCAL-NOTES');
    s.write(
      'main/.claude/worktrees/feature/.git',
      `gitdir: ${join(s.root, 'main/.git/worktrees/feature')}\n`,
    );
    s.write('main/.claude/worktrees/feature/CLAUDE.md', 'WORKTREE-COPY');
    const out = json(s, join(s.root, 'main/.claude/worktrees/feature'));
    expect(out.prompt).not.toContain('MAIN-CHECKED-IN');
    expect(out.prompt).toContain('MAIN-LOCAL-NOTES');
    expect(out.prompt).toContain('WORKTREE-COPY');
    expect(rel(s, out.files)).toEqual([
      'main/CLAUDE.local.md',
      'main/.claude/worktrees/feature/CLAUDE.md',
    ]);
  });

  it('a 50,000-character file loads and is reported as too large with its size', () => {
    const s = sandbox();
    const text = 'Ünïcödé guidance line.\n'.repeat(2174).slice(0, 50_000);
    s.write('proj/CLAUDE.md', text);
    const out = json(s, join(s.root, 'proj'));
    const f = out.files.find((x) => x.path.endsWith('proj/CLAUDE.md'));
    expect(f?.tooLarge).toBe(true);
    expect(f?.chars).toBe(50_000);
    expect(out.prompt).toContain(text.trim().slice(-200));
    const report = out.reports.find((r) => r.path === f?.path);
    expect(report?.severity).toBe('warning');
    expect(report?.message).toMatch(/50,?000/);
    const plain = instructions(s, join(s.root, 'proj'));
    expect(plain.stdout).toMatch(/too large/i);
  });

  it('the library caches per process and reloads after an explicit invalidation', async () => {
    const s = sandbox();
    const proj = join(s.root, 'proj');
    s.write('proj/AGENTS.md', 'VERSION-ONE');
    const lib = await import('engram/instructions');
    const environment = {
      cwd: proj,
      homedir: s.home,
      env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: s.managed },
    };
    const first = await lib.loadInstructions({ environment });
    expect(first.prompt).toContain('VERSION-ONE');
    s.write('proj/AGENTS.md', 'VERSION-TWO');
    expect((await lib.loadInstructions({ environment })).prompt).toContain('VERSION-ONE');
    lib.invalidateInstructions(environment, 'compact');
    const after = await lib.loadInstructions({ environment });
    expect(after.prompt).toContain('VERSION-TWO');
  });

  it('--cwd on a missing folder is a clear non-zero error', () => {
    const s = sandbox();
    const r = instructions(s, join(s.root, 'no-such-folder'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no such directory/i);
  });
});
