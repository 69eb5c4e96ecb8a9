import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  exports: Record<string, unknown>;
};

describe('the published package', () => {
  it('names every subpath (no "./*" wildcard) and each one loads from the build', {
    timeout: 90_000,
  }, async () => {
    const subpaths = Object.keys(pkg.exports).filter((k) => k !== './package.json');
    expect(subpaths.some((k) => k.includes('*'))).toBe(false);
    for (const subpath of subpaths) {
      const specifier = subpath === '.' ? pkg.name : `${pkg.name}${subpath.slice(1)}`;
      const mod = (await import(specifier)) as Record<string, unknown>;
      expect(Object.keys(mod).length, specifier).toBeGreaterThan(0);
    }
  });

  it('has the engram bin and the layers the design names', () => {
    expect(pkg.bin.engram).toBe('dist/cli/main.js');
    for (const layer of [
      'memdir',
      'instructions',
      'llm',
      'recall',
      'inject',
      'extract',
      'session',
      'dream',
      'mcp',
      'hooks',
    ]) {
      expect(pkg.exports[`./${layer}`], layer).toBeDefined();
    }
    expect(pkg.exports['./test']).toBeDefined();
  });
});
