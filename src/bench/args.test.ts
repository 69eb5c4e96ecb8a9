import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.js';

const DEFAULTS = [200, 2_000, 10_000];

describe('the benchmark options', () => {
  it('defaults to every size, runs by size, tables', () => {
    expect(parseBenchArgs([], DEFAULTS)).toEqual({
      sizes: DEFAULTS,
      runs: undefined,
      json: false,
      help: false,
    });
  });

  it('reads sizes, runs and json', () => {
    expect(parseBenchArgs(['--sizes', '200, 2000', '--runs', '3', '--json'], DEFAULTS)).toEqual({
      sizes: [200, 2_000],
      runs: 3,
      json: true,
      help: false,
    });
  });

  it('says help instead of running the whole benchmark', () => {
    expect(parseBenchArgs(['--help'], DEFAULTS).help).toBe(true);
    expect(parseBenchArgs(['-h'], DEFAULTS).help).toBe(true);
  });

  it('refuses an unknown option, a stray word and bad numbers rather than running the defaults', () => {
    expect(() => parseBenchArgs(['--size', '200'], DEFAULTS)).toThrow(/--size/);
    expect(() => parseBenchArgs(['200'], DEFAULTS)).toThrow();
    expect(() => parseBenchArgs(['--sizes', '200,abc'], DEFAULTS)).toThrow(/--sizes.*200,abc/);
    expect(() => parseBenchArgs(['--sizes', '0'], DEFAULTS)).toThrow(/--sizes/);
    expect(() => parseBenchArgs(['--runs', '0'], DEFAULTS)).toThrow(/--runs/);
    expect(() => parseBenchArgs(['--runs', 'x'], DEFAULTS)).toThrow(/--runs/);
  });
});
