import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEAN_HOOK_EVENTS } from '../src/cli/hook-argv.js';
import { HOOK_EVENTS } from '../src/hooks/input.js';

const ROOT = resolve(import.meta.dirname, '..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const RECORDER = join(ROOT, 'test/fixtures/record-imports.mjs');
/** Packages a prompt's hook process has no use for without a model. */
const NOT_ON_THE_HOOK_PATH = [
  'commander',
  'yaml',
  'marked',
  'zod',
  'picomatch',
  '@anthropic-ai/sdk',
  'openai',
  '@modelcontextprotocol/sdk',
];

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'engram-hook-entry-'));
  const dir = join(root, 'memory');
  mkdirSync(dir);
  for (const [file, description] of [
    ['pods.md', 'kubelet evicts pods when node memory runs low'],
    ['deploy.md', 'canary deploys roll back on latency alerts'],
  ] as const) {
    writeFileSync(
      join(dir, file),
      `---\nname: ${file}\ndescription: ${description}\ntype: project\n---\nBody of ${file}.\n`,
    );
    utimesSync(join(dir, file), Date.now() / 1000 - 3600, Date.now() / 1000 - 3600);
  }
  const input = JSON.stringify({
    hook_event_name: 'UserPromptSubmit',
    session_id: 's-1',
    cwd: root,
    prompt: 'why does the kubelet keep evicting pods',
  });
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    ENGRAM_HOME: join(root, '.engram'),
    ENGRAM_NO_DAEMON: '1',
  };
  return { root, dir, input, env };
}

function run(args: string[], input: string, env: Record<string, string>, log?: string) {
  const result = spawnSync(
    process.execPath,
    log ? ['--import', RECORDER, MAIN, ...args] : [MAIN, ...args],
    { input, env: log ? { ...env, ENGRAM_TEST_IMPORT_LOG: log } : env, encoding: 'utf8' },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function packagesIn(log: string): Set<string> {
  const names = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match) names.add(match[1]!);
  }
  return names;
}

describe('the lean hook entry', () => {
  it('answers `engram hook user-prompt-submit` without loading commander, yaml or any SDK', () => {
    const { root, dir, input, env } = setup();
    const log = join(root, 'imports.log');
    const lean = run(['hook', 'user-prompt-submit', '--dir', dir, '--no-model'], input, env, log);
    expect(lean.code).toBe(0);
    expect(lean.stdout).toContain('pods.md');
    const loaded = packagesIn(log);
    for (const name of NOT_ON_THE_HOOK_PATH) expect(loaded.has(name), name).toBe(false);
    // The recorder works: the full CLI (options before the command go through commander) loads it.
    const fullLog = join(root, 'full.log');
    const full = run(
      ['--dir', dir, 'hook', 'user-prompt-submit', '--no-model'],
      input,
      env,
      fullLog,
    );
    expect(packagesIn(fullLog).has('commander')).toBe(true);
    // Same bytes either way.
    expect(full.code).toBe(0);
    expect(full.stdout).toBe(lean.stdout);
  });

  it('keeps every option of `engram hook <event>` and leaves anything else to the full CLI', () => {
    const { dir, input, env } = setup();
    const budget = run(['hook', 'user-prompt-submit', `--dir=${dir}`, '--budget-ms=0'], input, env);
    expect(budget.code).toBe(1);
    expect(JSON.parse(budget.stdout)).toEqual({});
    expect(budget.stderr).toMatch(/--budget-ms needs a positive integer/);
    const help = run(['hook', 'user-prompt-submit', '--help'], '', env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--budget-ms/);
    // The full CLI parses it, and a hook's usage error is a failed hook: {} and 1, never 2.
    const unknown = run(['hook', 'user-prompt-submit', '--no-such-flag'], input, env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({});
    expect(unknown.stderr).toMatch(/unknown option '--no-such-flag'/);
  });

  it('an event this engram does not know (hooks written by a newer one) prints {} and exits 1, never 2', () => {
    // Exit 2 blocks on PreToolUse, Stop and UserPromptSubmit: a hook this version cannot run
    // must fail without stopping the session.
    const { input, env } = setup();
    for (const event of ['session-end', 'pre-tool-use', 'post-compact']) {
      const unknown = run(['hook', event], input, env);
      expect(unknown.code, event).toBe(1);
      expect(JSON.parse(unknown.stdout), event).toEqual({});
      expect(unknown.stderr, event).toMatch(new RegExp(`unknown command '${event}'`));
    }
    const help = run(['hook', '--help'], '', env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/session-start/);
  });

  it('lists the same events as the hook commands', () => {
    expect([...LEAN_HOOK_EVENTS].sort()).toEqual(Object.keys(HOOK_EVENTS).sort());
  });

  it('is bundled: no static import of those packages from the entry through the hook chunk', () => {
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist/cli/bundle/meta.json'), 'utf8')) as {
      outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
    };
    const hookChunk = Object.keys(meta.outputs).find((f) => /bundle\/hook-run-.*\.js$/.test(f));
    expect(hookChunk).toBeDefined();
    const seen = new Set<string>();
    const external = new Set<string>();
    const queue = ['dist/cli/main.js', hookChunk!];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const i of meta.outputs[file]?.imports ?? []) {
        if (i.kind === 'dynamic-import') continue;
        if (i.external) external.add(i.path);
        else queue.push(i.path);
      }
    }
    // The stemmer is the one package the hot path itself uses (every query is tokenized).
    expect([...external].filter((p) => !p.startsWith('node:') && p !== 'stemmer')).toEqual([]);
  });

  it('has its own one-file bundle: the stemmer inlined, no import() a vm.Script could not run', () => {
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist/cli/bundle/hook-meta.json'), 'utf8')) as {
      outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
    };
    const out = meta.outputs['dist/cli/bundle/hook.cjs'];
    expect(out).toBeDefined();
    expect(out!.imports.filter((i) => !i.external)).toEqual([]);
    expect(out!.imports.filter((i) => i.kind !== 'require-call')).toEqual([]);
    expect(out!.imports.map((i) => i.path)).not.toContain('stemmer');
  });
});
