import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ModelError, parseRetryAfter } from './model-error.js';
import { callWithRetries, retryDelayMs } from './retry.js';

describe('retryDelayMs', () => {
  it('grows exponentially with equal jitter and never exceeds the cap', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelayMs(0, o, 0)).toBe(50);
    expect(retryDelayMs(0, o, 1)).toBe(100);
    expect(retryDelayMs(2, o, 0)).toBe(200);
    expect(retryDelayMs(10, o, 0.999)).toBeLessThanOrEqual(1000);
    expect(retryDelayMs(0, o, 0, 700)).toBe(700);
    expect(retryDelayMs(0, o, 0, 60_000)).toBe(1000);
    fc.assert(
      fc.property(
        fc.nat(30),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (attempt, r) => {
          const d = retryDelayMs(attempt, o, r);
          return d >= 0 && d <= 1000 && d >= Math.min(1000, 100 * 2 ** attempt) / 2;
        },
      ),
    );
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});

describe('callWithRetries', () => {
  const classify = (e: unknown) => e as ModelError;
  it('retries only retryable failures, up to maxRetries', async () => {
    let calls = 0;
    const flaky = async () => {
      calls++;
      throw new ModelError('busy', { status: 503, isRetryable: true });
    };
    await expect(
      callWithRetries(flaky, classify, {
        timeoutMs: 1000,
        retry: { maxRetries: 3, baseDelayMs: 1 },
      }),
    ).rejects.toThrow('busy');
    expect(calls).toBe(4);
    calls = 0;
    const fatal = async () => {
      calls++;
      throw new ModelError('bad', { status: 400, isRetryable: false });
    };
    await expect(
      callWithRetries(fatal, classify, { timeoutMs: 1000, retry: { baseDelayMs: 1 } }),
    ).rejects.toThrow('bad');
    expect(calls).toBe(1);
  });

  it('stops waiting between attempts when aborted', async () => {
    const controller = new AbortController();
    const pending = callWithRetries(
      async () => {
        throw new ModelError('busy', { status: 429, isRetryable: true });
      },
      classify,
      {
        timeoutMs: 1000,
        signal: controller.signal,
        retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
      },
    );
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
  });
});
