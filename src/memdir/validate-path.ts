import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, normalize, posix, win32 } from 'node:path';
import { readDenyReason } from '../confine/index.js';

export type PathCheck = { ok: true; path: string } | { ok: false; reason: string };

/** Where no memory directory belongs: the system's own folders (Linux, macOS, Windows). */
const SYSTEM_DIRS = [
  '/etc',
  '/proc',
  '/dev',
  '/sys',
  '/bin',
  '/sbin',
  '/usr',
  '/boot',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/run',
  '/var/run',
  '/var/lib',
  '/var/log',
  '/System',
  '/Library',
  '/private/etc',
  '/private/var/db',
  'c:/windows',
  'c:/program files',
  'c:/program files (x86)',
  'c:/programdata',
];

/** The system folder `path` is (or is inside), or undefined. Pure. */
export function systemLocation(path: string): string | undefined {
  const p = path.replace(/\\/g, '/').replace(/\/+$/, '');
  const folded = /^[a-zA-Z]:/.test(p) ? p.toLowerCase() : p;
  return SYSTEM_DIRS.find((d) => folded === d || folded.startsWith(`${d}/`));
}

/**
 * Validate and expand a configured memory directory. Pure (home and platform are passed in).
 * Refuses what could widen write access: relative paths (also after normalization: `C:/../../x`
 * must not become `../x`), roots and near-roots, drive roots, UNC paths, NUL bytes, the bare home
 * forms (`~`, `~/`, `~/.`, `~/..`) and home itself, system folders, and credential folders.
 */
export function validateMemoryPath(
  raw: string,
  home: string,
  platform: NodeJS.Platform = process.platform,
): PathCheck {
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
  const drive = /^[a-zA-Z]:/.test(expanded);
  if (drive && platform !== 'win32')
    return { ok: false, reason: 'a Windows drive path means nothing on this system' };
  if (/^[a-zA-Z]:[\\/]?$/.test(expanded))
    return { ok: false, reason: 'a drive root is not allowed' };
  if (!(drive ? /^[a-zA-Z]:[\\/]/.test(expanded) : posix.isAbsolute(expanded))) {
    return { ok: false, reason: 'the path must be absolute (or start with ~/)' };
  }
  const normalized =
    (drive ? win32.normalize(expanded) : normalize(expanded)).replace(/[\\/]+$/, '') || '/';
  // Normalization must not turn an absolute path into a relative one or a root.
  if (drive ? !/^[a-zA-Z]:[\\/]./.test(normalized) : !isAbsolute(normalized))
    return { ok: false, reason: `"${value}" does not stay absolute after normalization` };
  if (normalized.replace(/^[a-zA-Z]:/, '').length < 3)
    return { ok: false, reason: `"${normalized}" is a root or too close to it` };
  const system = systemLocation(normalized);
  if (system) return { ok: false, reason: `${system} is a system folder` };
  if (normalized === normalize(home).replace(/[\\/]+$/, ''))
    return { ok: false, reason: 'the home folder itself cannot be the memory directory' };
  const secret = readDenyReason(`${normalized}/x`, { homedir: home });
  if (secret) return { ok: false, reason: `it is a credential location (${secret})` };
  return { ok: true, path: normalized };
}

/**
 * The disk half of the check: the folder must be a directory or creatable as one, and its real
 * location (links resolved as far as it exists) must not be a system or credential folder.
 */
export function checkMemoryDirOnDisk(path: string, home: string): PathCheck {
  let existing = path;
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  let info: ReturnType<typeof statSync>;
  let real: string;
  try {
    info = statSync(existing);
    real = realpathSync(existing);
  } catch {
    return { ok: true, path };
  }
  if (!info.isDirectory())
    return {
      ok: false,
      reason:
        existing === path
          ? `${path} is a file, not a memory directory`
          : `${existing} is not a directory, so it cannot be created`,
    };
  const system = systemLocation(real);
  if (system) return { ok: false, reason: `it resolves into ${system}, a system folder` };
  const secret = readDenyReason(`${real}/x`, { homedir: home });
  if (secret) return { ok: false, reason: `it resolves into a credential location (${secret})` };
  return { ok: true, path };
}
