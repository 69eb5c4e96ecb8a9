import { writeNameProblem } from '../confine/policy.js';

/**
 * Team memory keys: relative `.md` paths below the team directory, `/`-separated. The same rule is
 * applied by the server (on every write) and by the client (on every key it is handed), so a key
 * that could point outside the team directory never reaches the disk on either side.
 */

export const MAX_KEY_LENGTH = 512;

export type KeyCheck = { ok: true; key: string } | { ok: false; reason: string };

/** Check one key. Pure: no disk access (symlinks are checked where files are written). */
export function checkTeamKey(key: unknown): KeyCheck {
  if (typeof key !== 'string' || key.length === 0) return { ok: false, reason: 'empty key' };
  if (key.length > MAX_KEY_LENGTH) return { ok: false, reason: 'key too long' };
  if (key.includes('\0')) return { ok: false, reason: 'NUL byte in key' };
  if (/[\u0000-\u001f\u007f]/.test(key)) return { ok: false, reason: 'control character in key' };
  // A backslash is a separator on Windows: `a\..\..\x.md` would climb out there.
  if (key.includes('\\')) return { ok: false, reason: 'backslash in key' };
  if (key.startsWith('/')) return { ok: false, reason: 'absolute path' };
  // Drive letters and alternate data streams (`C:x.md`, `a.md:stream`).
  if (key.includes(':')) return { ok: false, reason: 'colon in key' };
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment === '') return { ok: false, reason: 'empty path segment' };
    if (segment === '.' || segment === '..') return { ok: false, reason: 'relative segment' };
    // Dot entries are engram's own (sync state, temp files, locks) and are never scanned.
    if (segment.startsWith('.')) return { ok: false, reason: 'hidden path segment' };
    if (segment.trim() !== segment) return { ok: false, reason: 'segment padded with spaces' };
    const problem = writeNameProblem(segment);
    if (problem) return { ok: false, reason: problem };
  }
  if (!key.endsWith('.md')) return { ok: false, reason: 'not a .md file' };
  return { ok: true, key };
}

export function isTeamKey(key: unknown): key is string {
  return checkTeamKey(key).ok;
}
