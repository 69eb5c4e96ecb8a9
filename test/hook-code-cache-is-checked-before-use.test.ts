import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { codeCacheFileBytes } from '../src/cli/code-cache.js';

const MAIN = join(resolve(import.meta.dirname, '..'), 'dist/cli/main.js');

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'engram-code-cache-hook-'));
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
  const home = join(root, '.engram');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: root,
    ENGRAM_HOME: home,
    ENGRAM_NO_DAEMON: '1',
  };
  const input = JSON.stringify({
    hook_event_name: 'UserPromptSubmit',
    session_id: 's-1',
    cwd: root,
    prompt: 'why does the kubelet keep evicting pods',
  });
  const hook = () => {
    const r = spawnSync(
      process.execPath,
      [MAIN, 'hook', 'user-prompt-submit', '--dir', dir, '--no-model'],
      { input, env, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  const cacheDir = join(home, 'cache');
  const cacheFile = () => {
    const names = readdirSync(cacheDir).filter((f) => f.endsWith('.v8'));
    expect(names).toHaveLength(1);
    return join(cacheDir, names[0]!);
  };
  return { hook, cacheFile };
}

describe("the hook process's code cache", () => {
  it('is written by the first hook, then used as is, with the same answer', () => {
    const { hook, cacheFile } = setup();
    const first = hook();
    expect(first).toContain('pods.md');
    const written = statSync(cacheFile());
    expect(hook()).toBe(first);
    const after = statSync(cacheFile());
    // Not written again: the second process took it.
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  });

  it('is replaced, and the answer unchanged, when it is corrupt, torn or made for other code', () => {
    const { hook, cacheFile } = setup();
    const expected = hook();
    const path = cacheFile();
    const good = readFileSync(path);
    // Well-formed files V8 must reject (bytecode of another script) and files that are not whole.
    const otherCode = codeCacheFileBytes(new Script('1 + 1').createCachedData());
    for (const bad of [otherCode, good.subarray(0, good.length >> 1), Buffer.from('garbage')]) {
      writeFileSync(path, bad);
      expect(hook()).toBe(expected);
      expect(readFileSync(cacheFile()).equals(bad)).toBe(false);
    }
    expect(readFileSync(cacheFile()).length).toBeGreaterThan(otherCode.length);
  });
});
