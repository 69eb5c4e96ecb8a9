import { describe, expect, it } from 'vitest';
import { isEngramError } from './errors.js';
import { importOptional, isMissingPackage } from './optional-import.js';

describe('importOptional', () => {
  it('says which package to install when an optional peer is missing', async () => {
    const name = 'engram-test-no-such-package';
    const error = await importOptional(name, 'A test feature', () => import(name)).catch(
      (e: unknown) => e,
    );
    expect(isEngramError(error, 'missing_dependency')).toBe(true);
    expect((error as Error).message).toMatch(
      /A test feature needs the package engram-test-no-such-package/,
    );
    expect((error as Error).message).toMatch(/npm install engram-test-no-such-package/);
  });

  it('loads an installed package, and passes other failures through untouched', async () => {
    const yaml = await importOptional('yaml', 'YAML', () => import('yaml'));
    expect(typeof yaml.parse).toBe('function');
    const other = new Error('boom');
    await expect(importOptional('yaml', 'YAML', () => Promise.reject(other))).rejects.toBe(other);
    // A package that is there but misses one of its own imports is not "missing".
    expect(
      isMissingPackage(
        Object.assign(
          new Error("Cannot find package 'left-pad' imported from /x/openai/index.js"),
          {
            code: 'ERR_MODULE_NOT_FOUND',
          },
        ),
        'openai',
      ),
    ).toBe(false);
  });
});
