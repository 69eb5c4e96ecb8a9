import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prepareInjectedMemory } from './build.js';
import { MAX_MEMORY_BYTES, MAX_MEMORY_LINES } from './constants.js';
import { truncationNote } from './prompts.js';
import { countLines, truncateMemoryContent } from './truncate.js';

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 3000 }),
  fc
    .array(fc.string({ unit: 'grapheme', maxLength: 120 }), { maxLength: 400 })
    .map((ls) => ls.join('\n')),
  fc
    .array(fc.string({ unit: 'binary', maxLength: 60 }), { maxLength: 300 })
    .map((ls) => `${ls.join('\n')}\n`),
);
const limits = fc.record({
  maxLines: fc.integer({ min: 0, max: 300 }),
  maxBytes: fc.integer({ min: 0, max: 5000 }),
});

describe('truncateMemoryContent', () => {
  it('never exceeds a cap, keeps a prefix, and cuts only after a newline', () => {
    fc.assert(
      fc.property(text, limits, (input, lim) => {
        const out = truncateMemoryContent(input, lim);
        expect(input.startsWith(out.text)).toBe(true);
        if (out.truncated) {
          expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(lim.maxBytes);
          expect(countLines(out.text)).toBeLessThanOrEqual(lim.maxLines);
          expect(out.text === '' || out.text.endsWith('\n')).toBe(true);
        } else {
          expect(out.text).toBe(input);
          expect(Buffer.byteLength(input)).toBeLessThanOrEqual(lim.maxBytes);
          expect(countLines(input)).toBeLessThanOrEqual(lim.maxLines);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps as much as fits: the next complete line would break a cap', () => {
    fc.assert(
      fc.property(text, limits, (input, lim) => {
        const out = truncateMemoryContent(input, lim);
        if (!out.truncated) return;
        const rest = input.slice(out.text.length);
        const nl = rest.indexOf('\n');
        if (nl < 0) return; // the remainder is a partial last line: never injected
        const next = out.text + rest.slice(0, nl + 1);
        const fits = Buffer.byteLength(next) <= lim.maxBytes && countLines(next) <= lim.maxLines;
        expect(fits).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('cuts a 50 KB memory to at most 4,096 bytes ending at a newline', () => {
    const line = 'The deploy script expects NODE_ENV=production and a warm cache — 部署 ✓\n';
    const big = line.repeat(Math.ceil(50_000 / Buffer.byteLength(line)));
    expect(Buffer.byteLength(big)).toBeGreaterThan(50_000);
    const out = truncateMemoryContent(big);
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(MAX_MEMORY_BYTES);
    expect(Buffer.byteLength(out.text)).toBeGreaterThan(MAX_MEMORY_BYTES - Buffer.byteLength(line));
    expect(out.text.endsWith('\n')).toBe(true);
  });

  it('enforces the line cap on short lines too', () => {
    const out = truncateMemoryContent('x\n'.repeat(500));
    expect(countLines(out.text)).toBe(MAX_MEMORY_LINES);
    expect(out.originalLines).toBe(500);
  });

  it('gives an empty prefix for one huge line rather than half of it', () => {
    const out = truncateMemoryContent('a'.repeat(10_000));
    expect(out).toMatchObject({ text: '', truncated: true, originalBytes: 10_000 });
  });
});

describe('prepareInjectedMemory', () => {
  it('adds nothing but the truncation note to a prefix of the file', () => {
    fc.assert(
      fc.property(text, (input) => {
        const m = prepareInjectedMemory(
          { file: 'a.md', path: '/m/a.md', mtimeMs: 0, content: input },
          0,
        );
        const note = truncationNote('/m/a.md', {
          maxLines: MAX_MEMORY_LINES,
          maxBytes: MAX_MEMORY_BYTES,
        });
        if (!m.truncated) {
          expect(m.content).toBe(input);
          return;
        }
        expect(m.content.endsWith(note)).toBe(true);
        const kept = m.content.slice(0, m.content.length - note.length);
        expect(input.startsWith(kept)).toBe(true);
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(MAX_MEMORY_BYTES);
      }),
      { numRuns: 300 },
    );
  });
});
