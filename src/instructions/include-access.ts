/**
 * Where a file of a given chain may read from. Pure functions of paths.
 *
 * A project's files (which arrive with a `git clone`) may include from the project and from the
 * user's home folder, as the issue asks, but never from the parts of home where tools keep
 * credentials: hidden entries (`~/.ssh`, `~/.aws`, `~/.config/gh`, `~/.npmrc`, …), the OS key and
 * app stores, and files named like credentials. The prompt goes to a model provider; a cloned
 * repository must not be able to ship a key there.
 */
import { basename, isAbsolute, join, parse, relative, sep } from 'node:path';
import { isInside } from './include-path.js';

/** The home folder as a project's files see it. */
export interface HomeScope {
  homedir: string;
  /** Hidden folders of home that hold instructions, not credentials (`~/.claude`, `$ENGRAM_HOME`). */
  openDirs: readonly string[];
}

export interface Access {
  /** Folders whose files may be read: the project, the discovered file's folder, user-listed ones. */
  roots: readonly string[];
  /** Anything outside `roots` may be read too (managed files, or `allowExternalIncludes: true`). */
  anywhere: boolean;
  /** Set for project and local files: home is readable, minus its private parts. */
  home?: HomeScope;
}

/** Non-hidden folders of home that hold key stores and app secrets (macOS, Windows). */
const PRIVATE_HOME_DIRS = ['Library/Keychains', 'Library/Cookies', 'AppData'];

/** Names that say "credential" whatever folder they sit in. */
const SECRET_NAME =
  /(^|[^a-z])(credentials?|secrets?|passwords?|private[-_]?key)([^a-z]|$)|^id_(rsa|dsa|ecdsa|ed25519)|\.(pem|key|p12|pfx|kdbx)$|^auth\.json$|(^|[._-])tokens?\.(json|ya?ml|toml|txt)$|^\.env/i;

export function homeScopeFor(homedir: string, openDirs: readonly string[]): HomeScope | undefined {
  // A home at the file system root (HOME=/ in some containers) would open every file.
  if (!isAbsolute(homedir) || parse(homedir).root === homedir) return undefined;
  return { homedir, openDirs: openDirs.filter((d) => isInside(d, homedir) && d !== homedir) };
}

/**
 * Why `path` may not be read under `access`, or undefined when it may. `outside` means outside
 * every allowed folder; any other text names the private part of home it falls in.
 */
export function accessProblem(path: string, access: Access): string | undefined {
  const home = access.home;
  const inHome = home !== undefined && isInside(path, home.homedir);
  // A root that holds the whole home (the project is ~, or the user listed ~) does not vouch for
  // ~/.ssh: only a folder named inside home can open a private part of it.
  const trusted = access.roots.some(
    (root) => isInside(path, root) && !(inHome && home && isInside(home.homedir, root)),
  );
  if (trusted) return undefined;
  if (inHome && home) return privateHomeReason(path, home);
  return access.anywhere ? undefined : 'outside';
}

/** The private part of home that `path` (inside home) falls in, or undefined when it is open. */
export function privateHomeReason(path: string, home: HomeScope): string | undefined {
  const open = home.openDirs.find((dir) => isInside(path, dir));
  const parts = relative(open ?? home.homedir, path)
    .split(sep)
    .filter(Boolean);
  const hidden = parts.findIndex((p) => p.startsWith('.'));
  if (hidden !== -1) {
    const entry = relative(home.homedir, join(open ?? home.homedir, ...parts.slice(0, hidden + 1)));
    return `~${sep}${entry}, a hidden entry where tools keep their settings and credentials`;
  }
  if (!open) {
    const rel = parts.join('/');
    const store = PRIVATE_HOME_DIRS.find((d) => rel === d || rel.startsWith(`${d}/`));
    if (store)
      return `~${sep}${store.split('/').join(sep)}, where the system keeps keys and app secrets`;
  }
  if (SECRET_NAME.test(basename(path))) return `${basename(path)}, a file named like a credential`;
  return undefined;
}
