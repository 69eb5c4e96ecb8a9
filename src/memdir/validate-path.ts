import { isAbsolute, normalize } from 'node:path';

export type PathCheck = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Validate and expand a configured memory directory. Pure (home is passed in).
 * Refuses what could widen write access: relative paths, roots and near-roots, drive roots,
 * UNC paths, NUL bytes, and the bare home forms (`~`, `~/`, `~/.`, `~/..`) that would make the
 * whole home directory the memory directory.
 */
export function validateMemoryPath(raw: string, home: string): PathCheck {
  if (typeof raw !== 'string' || raw.trim() === '')
    return { ok: false, reason: 'the path is empty' };
  if (raw.includes('\0')) return { ok: false, reason: 'the path contains a NUL byte' };
  const value = raw.trim();
  if (value.startsWith('\\\\') || value.startsWith('//')) {
    return { ok: false, reason: 'UNC / network paths are not allowed' };
  }
  if (/^~[\\/]?(\.{1,2})?[\\/]?$/.test(value)) {
    return {
      ok: false,
      reason: `"${value}" would be the whole home directory; name a folder inside it`,
    };
  }
  let expanded = value;
  if (value.startsWith('~/') || value.startsWith('~\\'))
    expanded = `${home.replace(/[\\/]+$/, '')}/${value.slice(2)}`;
  else if (value.startsWith('~')) return { ok: false, reason: '"~user" paths are not supported' };
  if (/^[a-zA-Z]:[\\/]?$/.test(expanded))
    return { ok: false, reason: 'a drive root is not allowed' };
  if (!isAbsolute(expanded) && !/^[a-zA-Z]:[\\/]/.test(expanded)) {
    return { ok: false, reason: 'the path must be absolute (or start with ~/)' };
  }
  const normalized = normalize(expanded).replace(/[\\/]+$/, '') || '/';
  if (normalized.length < 3)
    return { ok: false, reason: `"${normalized}" is a root or too close to it` };
  return { ok: true, path: normalized };
}
