import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCachedBundle } from './code-cache.js';

interface Answer {
  answer: () => string;
  url: string;
}

function bundle(source: string) {
  const root = mkdtempSync(join(tmpdir(), 'engram-code-cache-'));
  const file = join(root, 'hook.cjs');
  writeFileSync(file, source);
  return { root, file, cacheDir: join(root, 'cache') };
}

const SOURCE = `'use strict';
const { join } = require('node:path');
exports.answer = () => join('a', 'b') + ':' + [1, 2, 3].map((n) => n * 2).join(',');
exports.url = __engramBundleUrl;
`;

const cacheFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.v8'));

describe('loading a bundle with a V8 code cache', () => {
  it('compiles from source first, saves the bytecode, and uses it the next time', () => {
    const { file, cacheDir } = bundle(SOURCE);
    const first = loadCachedBundle<Answer>(file, cacheDir);
    expect(first.fromCache).toBe(false);
    expect(first.exports.answer()).toBe('a/b:2,4,6');
    expect(first.exports.url).toBe(`file://${file}`);
    first.saveCache();
    const [name] = cacheFiles(cacheDir);
    expect(name).toMatch(/^hook-[0-9a-f]{16}\.v8$/);
    const written = statSync(join(cacheDir, name!));

    const second = loadCachedBundle<Answer>(file, cacheDir);
    expect(second.fromCache).toBe(true);
    expect(second.exports.answer()).toBe('a/b:2,4,6');
    second.saveCache(); // a cache that was used is not written again
    const after = statSync(join(cacheDir, name!));
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  });

  it('never runs bytecode made for another text of the bundle, even one of the same length', () => {
    const { file, cacheDir } = bundle(SOURCE);
    const first = loadCachedBundle<Answer>(file, cacheDir);
    first.saveCache();
    const edited = SOURCE.replace('n * 2', 'n * 3');
    expect(edited.length).toBe(SOURCE.length);
    writeFileSync(file, edited);
    const second = loadCachedBundle<Answer>(file, cacheDir);
    expect(second.fromCache).toBe(false);
    expect(second.exports.answer()).toBe('a/b:3,6,9');
    second.saveCache();
    expect(cacheFiles(cacheDir)).toHaveLength(2);
  });

  it('ignores a torn or corrupt cache file, compiles from source and writes it again', () => {
    const { file, cacheDir } = bundle(SOURCE);
    loadCachedBundle<Answer>(file, cacheDir).saveCache();
    const path = join(cacheDir, cacheFiles(cacheDir)[0]!);
    const good = readFileSync(path);
    const damaged = [
      good.subarray(0, good.length >> 1), // torn
      Buffer.concat([good.subarray(0, good.length - 8), Buffer.alloc(8, 0xff)]), // flipped bytes
      Buffer.from('not a cache at all'),
      Buffer.alloc(0),
    ];
    for (const bytes of damaged) {
      writeFileSync(path, bytes);
      const loaded = loadCachedBundle<Answer>(file, cacheDir);
      expect(loaded.fromCache).toBe(false);
      expect(loaded.exports.answer()).toBe('a/b:2,4,6');
      loaded.saveCache();
      expect(readFileSync(path).equals(bytes)).toBe(false);
      expect(loadCachedBundle<Answer>(file, cacheDir).fromCache).toBe(true);
    }
  });

  it('works without a cache directory, and with one that cannot be written', () => {
    const { root, file } = bundle(SOURCE);
    const none = loadCachedBundle<Answer>(file, undefined);
    expect(none.exports.answer()).toBe('a/b:2,4,6');
    none.saveCache();
    // A file where the directory would be: saving fails quietly, the answer stands.
    const blocked = join(root, 'blocked');
    writeFileSync(blocked, '');
    const loaded = loadCachedBundle<Answer>(file, blocked);
    expect(() => loaded.saveCache()).not.toThrow();
    expect(loaded.exports.answer()).toBe('a/b:2,4,6');
  });
});
