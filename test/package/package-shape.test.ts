import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engram, ROOT, sandbox } from '../memdir/support.js';

describe('the package', () => {
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
