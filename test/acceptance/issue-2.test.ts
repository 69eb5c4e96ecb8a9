/**
 * Acceptance tests for issue 2 (package, memory directory, `engram` CLI), written from the issue
 * text alone: the built CLI runs as a real child process with a throwaway HOME, ENGRAM_HOME and
 * managed dir, and the library is imported through the package's public entry points.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const WRITER = join(import.meta.dirname, 'fixtures', 'issue-2-writer.mjs');

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(join(ROOT, 'dist', 'memdir', 'index.js'))) {
    throw new Error('Acceptance tests drive the built package: run `npm run build` first.');
  }
});

interface Sandbox {
  root: string;
  home: string;
  engramHome: string;
  managed: string;
  env: NodeJS.ProcessEnv;
}

function sandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'engram-acc2-')));
  const home = join(root, 'home');
  const engramHome = join(root, 'engram-home');
  const managed = join(root, 'managed');
  for (const d of [home, engramHome, managed]) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('ENGRAM_')) delete env[key];
  Object.assign(env, {
    HOME: home,
    USERPROFILE: home,
    ENGRAM_HOME: engramHome,
    ENGRAM_MANAGED_DIR: managed,
  });
  return { root, home, engramHome, managed, env };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function engram(
  s: Sandbox,
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {},
): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? s.root,
    env: { ...s.env, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking: for runs that may go side by side. */
function engramAsync(s: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: s.root,
      env: { ...s.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function json<T = Record<string, unknown>>(r: Run): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

function gitRepo(path: string): string {
  mkdirSync(path, { recursive: true });
  const r = spawnSync('git', ['init', '-q', path]);
  if (r.status !== 0) mkdirSync(join(path, '.git'), { recursive: true });
  return path;
}

function memoryFile(
  dir: string,
  file: string,
  fm: Record<string, string>,
  body: string,
  mtimeSec?: number,
) {
  const head = Object.entries(fm)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  writeFileSync(join(dir, file), `---\n${head}\n---\n${body}`);
  if (mtimeSec !== undefined) utimesSync(join(dir, file), mtimeSec, mtimeSec);
}

function mdFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'MEMORY.md' && !f.startsWith('.'))
    .sort();
}

const POINTER = /^- \[[^\]]*\]\(([^)]+)\)/;
function indexTargets(dir: string): string[] {
  const path = join(dir, 'MEMORY.md');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => POINTER.exec(l)?.[1])
    .filter((x): x is string => x !== undefined)
    .map((t) => decodeURIComponent(t));
}

describe('issue 2: the package', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

  it('is one ESM package named engram with an engram bin and named export subpaths', () => {
    expect(pkg.name).toBe('engram');
    expect(pkg.type).toBe('module');
    expect(Object.keys(pkg.bin)).toContain('engram');
    const subpaths = Object.keys(pkg.exports);
    expect(subpaths).toContain('.');
    expect(subpaths).toContain('./memdir');
    expect(subpaths.some((k) => k.includes('*'))).toBe(false);
    expect(pkg.devDependencies.vitest).toBe('4.1.12');
    expect(pkg.devDependencies.vite).toBe('8.3.8');
  });

  it('README quickstart is exactly two commands, and the demo the first one runs works offline', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const quick = /## Quickstart\s+```(?:sh|bash|shell)?\n([\s\S]*?)```/.exec(readme);
    expect(quick?.[1]?.trim().split('\n')).toEqual(['npm ci && npm run demo', 'npm test']);
    expect(pkg.scripts.demo).toMatch(/build/);
    expect(pkg.scripts.test).toMatch(/vitest/);
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/npm ci/);
    expect(ci).toMatch(/npm test/);
    // What `npm run demo` runs after its build step, without any key or server.
    const s = sandbox();
    const env = { ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' };
    const demoCmd = String(pkg.scripts.demo).split('&&').pop()?.trim() ?? '';
    const demoArgs = demoCmd.replace(/^node\s+dist\/cli\/main\.js\s*/, '').split(/\s+/);
    const r = engram(s, demoArgs.filter(Boolean), { cwd: ROOT, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(200);
  });

  it('the library entry points load from the built package', async () => {
    const memdir = await import('engram/memdir');
    for (const name of ['scanMemories', 'saveMemory', 'loadIndex', 'canWriteWithoutPrompt']) {
      expect(typeof (memdir as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});

describe('issue 2: where the memory directory lives', () => {
  it('defaults to $ENGRAM_HOME/projects/<git root>/memory, shared by subfolders', () => {
    const s = sandbox();
    const repo = gitRepo(join(s.root, 'work', 'Mein Projekt'));
    mkdirSync(join(repo, 'crates', 'core'), { recursive: true });
    const atRoot = json(engram(s, ['path', '--json'], { cwd: repo }));
    const inSub = json(engram(s, ['path', '--json'], { cwd: join(repo, 'crates', 'core') }));
    expect(Object.keys(atRoot).sort()).toEqual(['path', 'source', 'writeWithoutPrompt']);
    expect(atRoot.source).toBe('default');
    expect(atRoot.writeWithoutPrompt).toBe(true);
    expect(String(atRoot.path).startsWith(join(s.engramHome, 'projects'))).toBe(true);
    expect(String(atRoot.path).endsWith('/memory')).toBe(true);
    expect(inSub.path).toBe(atRoot.path);
    // Outside git the working directory keys the project.
    const loose = join(s.root, 'loose', 'folder');
    mkdirSync(loose, { recursive: true });
    const outside = json(engram(s, ['path', '--json'], { cwd: loose }));
    expect(outside.path).not.toBe(atRoot.path);
    // ENGRAM_HOME defaults to ~/.engram.
    const noHome = json(
      engram(s, ['path', '--json'], { cwd: repo, env: { ENGRAM_HOME: undefined } }),
    );
    expect(String(noHome.path).startsWith(join(s.home, '.engram', 'projects'))).toBe(true);
    // Plain output says which source chose it.
    const plain = engram(s, ['path'], { cwd: repo });
    expect(plain.stdout).toContain(String(atRoot.path));
    expect(plain.stdout).toMatch(/default/);
  });

  it('project settings cannot move it (~/.ssh); local and user settings can; env can but never writes without prompt', async () => {
    const s = sandbox();
    const repo = gitRepo(join(s.root, 'cloned'));
    mkdirSync(join(repo, '.engram'), { recursive: true });
    const base = json(engram(s, ['path', '--json'], { cwd: repo }));
    writeFileSync(
      join(repo, '.engram', 'settings.json'),
      JSON.stringify({ memoryDirectory: '~/.ssh' }),
    );
    const hostile = engram(s, ['path', '--json'], { cwd: repo });
    expect(json(hostile).path).toBe(base.path);
    expect(json(hostile).source).toBe('default');
    expect(hostile.stderr).toMatch(/ignor/i);
    expect(hostile.stderr.match(/ignor/gi)?.length).toBe(1);

    writeFileSync(
      join(s.engramHome, 'settings.json'),
      JSON.stringify({ memoryDirectory: '~/notes/agent-memory' }),
    );
    const user = json(engram(s, ['path', '--json'], { cwd: repo }));
    expect(user).toEqual({
      path: join(s.home, 'notes', 'agent-memory'),
      source: 'user',
      writeWithoutPrompt: true,
    });

    const localDir = join(s.root, 'local-memories');
    writeFileSync(
      join(repo, '.engram', 'settings.local.json'),
      JSON.stringify({ memoryDirectory: localDir }),
    );
    const local = json(engram(s, ['path', '--json'], { cwd: repo }));
    expect(local).toEqual({ path: localDir, source: 'local', writeWithoutPrompt: true });

    const flagDir = join(s.root, 'flag-memories');
    const flag = json(engram(s, ['path', '--json', '--memory-dir', flagDir], { cwd: repo }));
    expect(flag).toMatchObject({ path: flagDir, source: 'flag' });

    const policyDir = join(s.root, 'policy-memories');
    writeFileSync(join(s.managed, 'settings.json'), JSON.stringify({ memoryDirectory: policyDir }));
    const policy = json(engram(s, ['path', '--json', '--memory-dir', flagDir], { cwd: repo }));
    expect(policy).toMatchObject({ path: policyDir, source: 'policy' });

    const envDir = join(s.root, 'host-memories');
    const env = json(
      engram(s, ['path', '--json'], { cwd: repo, env: { ENGRAM_MEMORY_DIR: envDir } }),
    );
    expect(env).toEqual({ path: envDir, source: 'env', writeWithoutPrompt: false });

    // The library answer a host agent asks for.
    const memdir = await import('engram/memdir');
    const environment = {
      cwd: repo,
      homedir: s.home,
      env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: join(s.root, 'no-policy') },
    };
    const trusted = memdir.resolveMemoryDir(environment);
    expect(trusted.source).toBe('local');
    expect(memdir.canWriteWithoutPrompt(join(localDir, 'x.md'), trusted)).toBe(true);
    expect(memdir.canWriteWithoutPrompt(join(s.home, '.ssh', 'config'), trusted)).toBe(false);
    const fromEnv = memdir.resolveMemoryDir({
      ...environment,
      env: { ...environment.env, ENGRAM_MEMORY_DIR: envDir },
    });
    expect(fromEnv.path).toBe(envDir);
    expect(memdir.canWriteWithoutPrompt(join(envDir, 'x.md'), fromEnv)).toBe(false);
  });

  it('refuses bad configured paths with an error naming the source', async () => {
    const s = sandbox();
    const bad = [
      '/',
      '/x',
      '~',
      '~/',
      '~/.',
      '~/..',
      'C:',
      'C:\\',
      '\\\\fileserver\\share',
      '//fileserver/share',
      'relative/dir',
    ];
    const runs = await Promise.all(
      bad.map((value) => engramAsync(s, ['path', '--json'], { ENGRAM_MEMORY_DIR: value })),
    );
    runs.forEach((r, i) => {
      expect(r.code, bad[i]).not.toBe(0);
      expect(r.stderr, bad[i]).toContain('ENGRAM_MEMORY_DIR');
    });
    const nul = engram(s, ['path', '--memory-dir', 'relative/mem']);
    expect(nul.code).not.toBe(0);
    expect(nul.stderr).toMatch(/--memory-dir/);
    writeFileSync(join(s.engramHome, 'settings.json'), JSON.stringify({ memoryDirectory: '~' }));
    const user = engram(s, ['path']);
    expect(user.code).not.toBe(0);
    expect(user.stderr).toContain(join(s.engramHome, 'settings.json'));
    // ~/x expands.
    writeFileSync(
      join(s.engramHome, 'settings.json'),
      JSON.stringify({ memoryDirectory: '~/mem-ok' }),
    );
    expect(json(engram(s, ['path', '--json'])).path).toBe(join(s.home, 'mem-ok'));
  });
});

describe('issue 2: the CLI on a memory directory', () => {
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

describe('issue 2: formats people actually have', () => {
  it('a memory written with CRLF line endings keeps its type and description', () => {
    const s = sandbox();
    const dir = join(s.root, 'windows');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'build_agent.md'),
      '---\r\nname: build agent\r\ndescription: CI runs on a Windows build agent\r\ntype: reference\r\n---\r\nagent-07\r\n',
    );
    writeFileSync(join(dir, 'MEMORY.md'), '- [Build agent](build_agent.md) — Windows CI agent\r\n');
    const list = engram(s, ['list', '--dir', dir]);
    expect(list.stdout).toMatch(
      /^- \[reference\] build_agent\.md \(.+\): CI runs on a Windows build agent$/m,
    );
    const audit = engram(s, ['audit', '--dir', dir, '--json']);
    expect(json(audit).problems).toEqual([]);
  });

  it('index lines stay near 150 characters even for a long title and description', () => {
    const s = sandbox();
    const dir = join(s.root, 'wordy');
    const title =
      'Kubernetes-Cluster-Upgrade auf Version 1.31 erfordert vorher die Migration aller Ingress-Objekte 🚢 und Zertifikate';
    const r = engram(
      s,
      [
        'add',
        '--dir',
        dir,
        '--json',
        '--type',
        'project',
        '--name',
        title,
        '--description',
        `${'Warum: '.repeat(40)}Ende`,
        '--body',
        'x\n**Why:** outage in März',
      ],
      {},
    );
    expect(r.code, r.stderr).toBe(0);
    const line = readFileSync(join(dir, 'MEMORY.md'), 'utf8').trimEnd();
    expect(line.length).toBeLessThanOrEqual(160);
    expect(line).not.toContain('\uFFFD');
    expect(indexTargets(dir)).toEqual([String(json(r).file)]);
  });

  it('canWriteWithoutPrompt answers from where a host runs, not only from a resolution', async () => {
    const s = sandbox();
    const memdir = await import('engram/memdir');
    const repo = gitRepo(join(s.root, 'svc'));
    const environment = {
      cwd: repo,
      homedir: s.home,
      env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: s.managed },
    };
    const dir = memdir.resolveMemoryDir(environment).path;
    expect(memdir.canWriteWithoutPrompt(join(dir, 'note.md'), environment)).toBe(true);
    expect(memdir.canWriteWithoutPrompt(join(repo, 'src', 'main.go'), environment)).toBe(false);
    const hosted = {
      ...environment,
      env: { ...environment.env, ENGRAM_MEMORY_DIR: join(s.root, 'hosted') },
    };
    expect(memdir.canWriteWithoutPrompt(join(s.root, 'hosted', 'note.md'), hosted)).toBe(false);
    // A symlink inside the directory does not carry the carve-out outside it.
    mkdirSync(join(s.home, '.ssh'), { recursive: true });
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(s.home, '.ssh'), join(dir, 'keys'));
    expect(memdir.canWriteWithoutPrompt(join(dir, 'keys', 'authorized_keys'), environment)).toBe(
      false,
    );
    expect(memdir.canWriteWithoutPrompt(join(dir, 'new-topic', 'note.md'), environment)).toBe(true);
  });
});

describe('issue 2: freshness and guidance for agents', () => {
  it('whole-day ages, today / yesterday / N days ago, and a warning only past one day', async () => {
    const m = await import('engram/memdir');
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    const day = 86_400_000;
    expect(m.memoryAgeDays(now - 3 * 3_600_000, now)).toBe(0);
    expect(m.memoryAgeDays(now - day - 1, now)).toBe(1);
    expect(m.memoryAgeDays(now - 47.9 * day, now)).toBe(47);
    expect(m.memoryAgeText(0)).toBe('today');
    expect(m.memoryAgeText(1)).toBe('yesterday');
    expect(m.memoryAgeText(12)).toBe('12 days ago');
    expect(m.memoryAge(now - 12.5 * day, now)).toBe('12 days ago');
    expect(m.stalenessWarning(0)).toBe('');
    expect(m.stalenessWarning(1)).toBe('');
    expect(m.stalenessWarning(2)).toMatch(/2 days old/);
    expect(m.memoryFreshnessText(now - day, now)).toBe('');
    expect(m.memoryFreshnessText(now - 90 * day, now)).toMatch(/90 days old/);
  });

  it('the guidance names the four types, what not to save, the two steps, absolute dates, verification as its own section, and ignoring memory', async () => {
    const m = await import('engram/memdir');
    const text = m.memoryGuidance({ memoryDir: '/srv/agents/memory' });
    expect(m.memoryGuidance('/srv/agents/memory')).toBe(text);
    for (const t of ['user', 'feedback', 'project', 'reference'])
      expect(text).toMatch(new RegExp(`\\*\\*${t}\\*\\*`));
    expect(text).toMatch(/even when .*ask/i);
    expect(text).toContain('MEMORY.md');
    expect(text).toContain('/srv/agents/memory');
    expect(text).toMatch(/absolute/i);
    const headings = text.split('\n').filter((l) => /^#{1,3} /.test(l));
    const verify = headings.find((h) => /verif|check/i.test(h));
    expect(verify, headings.join('\n')).toBeDefined();
    expect(verify).toMatch(/^#{2,3} /);
    const ignore = text.split('\n').findIndex((l) => /ignore/i.test(l) && /memor/i.test(l));
    expect(ignore).toBeGreaterThan(-1);
    // The verification guidance is a section after the saving instructions, not a bullet.
    expect(text.indexOf(verify!)).toBeGreaterThan(text.indexOf('MEMORY.md'));
  });
});

describe('issue 2: caps', () => {
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

function writer(dir: string, name: string, count: string): ChildProcess {
  return spawn(process.execPath, [WRITER, dir, name, count], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('issue 2: atomic saves under real processes', () => {
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
    const unexpected = problems.filter((p) => !['orphan', 'leftover_temp'].includes(p.kind));
    expect(unexpected).toEqual([]);
  }, 60_000);
});
