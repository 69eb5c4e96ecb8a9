import { describe, expect, it } from 'vitest';
import { uninjectableBytes } from './injectable.js';

const bytes = (...b: number[]) => new Uint8Array(b);

describe('uninjectableBytes', () => {
  it('accepts UTF-8 text: ASCII, multi-byte characters, a byte-order mark, nothing at all', () => {
    expect(uninjectableBytes(Buffer.from('façade 用pnpm安装 😀\n'))).toBeUndefined();
    expect(uninjectableBytes(bytes(0xef, 0xbb, 0xbf, 0x61))).toBeUndefined();
    expect(uninjectableBytes(bytes())).toBeUndefined();
    // A view into a larger buffer is judged on its own bytes.
    expect(uninjectableBytes(Buffer.from('ok\xff', 'latin1').subarray(0, 2))).toBeUndefined();
  });

  it('names NUL bytes first, then any byte sequence a strict UTF-8 decoder refuses', () => {
    expect(uninjectableBytes(bytes(0x61, 0x00, 0xff))).toBe('nul_bytes');
    for (const invalid of [
      bytes(0xff),
      bytes(0xc0, 0x80), // overlong NUL
      bytes(0xed, 0xa0, 0x80), // an encoded surrogate
      bytes(0xf4, 0x90, 0x80, 0x80), // past U+10FFFF
      bytes(0x61, 0xe2, 0x82), // cut in the middle of a character
    ]) {
      expect(uninjectableBytes(invalid)).toBe('invalid_utf8');
    }
  });
});
