/**
 * A short hash of a short text (FNV-1a, 2 × 32 bits, 16 hex digits). Not a secret and not for
 * integrity: it names a file or a socket after a key. No imports, so the hook's thin client can
 * carry it. Pure.
 */
export function shortHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
