/**
 * What may be touched, as pure functions of names and physical paths. The walker in `locate.ts`
 * asks these questions about every component it really visits, so the answer is about the file
 * the operation will use, never about a spelling of it.
 */
import { isAbsolute, relative, sep } from 'node:path';

export type AccessKind = 'read' | 'write';

/** Where credentials live and who may not see them; every field optional. */
export interface DenyContext {
  /** The user's home folder: `~/.claude` and `~/.claude.json` are judged against it. */
  homedir?: string;
  /** `$ENGRAM_HOME`: its settings and other projects' memory folders are private. */
  engramHome?: string;
  /** Memory folders this confinement serves (own project, user layer): never "another project's". */
  ownMemoryDirs?: readonly string[];
  /**
   * Set for a door whose roots are wider than its trust (a cloned repository's `@` includes under
   * a root that holds the whole home folder): the hidden entries of home (`~/.config`, `~/.local`,
   * `~/.claude`, ...), where tools keep settings and tokens, are refused except below one of
   * these folders (roots the user or the project named inside such an entry, `~/.dotfiles`).
   */
  homeDotEntriesOpenBelow?: readonly string[];
}

/** Folders that hold keys whatever folder they sit in. */
const SECRET_DIRS = new Set(['.ssh', '.aws', '.gnupg', '.kube', '.docker', '.password-store']);

/**
 * Version control's own folders: `.git/config` and `.git/FETCH_HEAD` hold remote URLs, which can
 * carry a token (`https://x-access-token:...@github.com/...`), `.hg/hgrc` has an `[auth]` section.
 * No memory task needs their internals; the project's files are read from the working tree.
 */
const VCS_DIRS = new Set(['.git', '.hg', '.svn']);

/**
 * File names that hold credentials. `.env*` covers `.env.local`, `.envrc`, `.env.production`;
 * `.gitconfig` and `.hgrc` can hold tokens in URLs, `insteadOf` rules and `[auth]` sections.
 */
const SECRET_FILE =
  /^(\.env.*|\.netrc|_netrc|\.npmrc|\.gitconfig|\.hgrc|\.pypirc|\.git-credentials|\.pgpass|\.credentials\.json|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|.*\.(pem|p12|pfx|kdbx|keystore))$/i;

/** Below home: stores of keys, cookies and cloud tokens that are not one hidden folder of their own. */
const HOME_SECRET_DIRS = [
  ['Library', 'Keychains'],
  ['Library', 'Cookies'],
  ['.config', 'gh'],
  ['.config', 'gcloud'],
  ['.azure'],
  ['.local', 'share', 'keyrings'],
];

/** Windows device names: a file called `con.md` cannot be opened there and breaks sync. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** True when `text` holds a control character (C0, C1, DEL) or a line or direction mark. Pure. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

export function isInsideOrSame(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Why one name below a root may not be created or written, or undefined. Hidden entries cover
 * `.git` (a `core.fsmonitor` in `.git/config` runs at the next `git status`) and engram's own
 * lock, temp and cache files, which all start with a dot.
 */
export function writeNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return `"${name}" is not a file name`;
  if (hasControlCharacter(name)) return 'names cannot contain control or direction characters';
  if (name.startsWith('.'))
    return `${JSON.stringify(name)} is hidden; .git and engram's own lock, temp and cache files are never written by a tool`;
  if (RESERVED.test(name)) return `${JSON.stringify(name)} is a reserved device name`;
  if (/[ .]$/.test(name)) return `${JSON.stringify(name)} ends in a space or a dot`;
  if (Buffer.byteLength(name) > 255) return 'the name is longer than 255 bytes';
  return undefined;
}

/**
 * Why a physical path may not be read, or undefined. The deny-list holds even inside an allowed
 * root: a project that is the home folder (a dotfiles checkout) still does not hand out `~/.ssh`.
 */
export function readDenyReason(given: string, deny: DenyContext = {}): string | undefined {
  // Compared in lower case: on a case-insensitive disk (macOS, Windows) `~/.AWS/credentials` and
  // `~/.Claude/Settings.json` are the same files as their lower-case names.
  const physical = given.toLowerCase();
  const parts = given.split(/[\\/]+/).filter(Boolean);
  const secretDir = parts.find((p) => SECRET_DIRS.has(p.toLowerCase()));
  if (secretDir) return `${secretDir} holds credentials`;
  const vcsDir = parts.find((p) => VCS_DIRS.has(p.toLowerCase()));
  if (vcsDir) return `${vcsDir} is version control's own folder (remote URLs can carry tokens)`;
  const name = parts.at(-1) ?? '';
  if (SECRET_FILE.test(name)) return `${name} is a credential file`;
  const home = deny.homedir?.toLowerCase();
  if (home && isAbsolute(home) && relative('/', home) !== '') {
    const claude = `${home}${sep}.claude`;
    if (physical === `${claude}.json`) return '~/.claude.json holds Claude Code credentials';
    if (isInsideOrSame(physical, claude) && /^settings(\..*)?\.json$/i.test(name))
      return 'Claude Code settings may hold keys';
    const below = isInsideOrSame(physical, home) ? relative(home, physical).split(sep) : [];
    const store = HOME_SECRET_DIRS.find((d) => d.every((p, i) => below[i] === p.toLowerCase()));
    if (store) return `~/${store.join('/')} holds keys and tokens`;
    const open = deny.homeDotEntriesOpenBelow;
    if (
      open &&
      below[0]?.startsWith('.') &&
      !open.some((d) => isInsideOrSame(physical, d.toLowerCase()))
    )
      return `~/${below[0]} is a hidden folder of home, where tools keep settings and tokens`;
  }
  const engramHome = deny.engramHome?.toLowerCase();
  if (engramHome) {
    if (
      isInsideOrSame(physical, engramHome) &&
      /^settings(\..*)?\.json$/i.test(name) &&
      !relative(engramHome, physical).includes(sep)
    )
      return "engram's user settings may hold keys";
    const projects = `${engramHome}${sep}projects`;
    const own = (deny.ownMemoryDirs ?? []).map((d) => d.toLowerCase());
    if (
      isInsideOrSame(physical, projects) &&
      physical !== projects &&
      !own.some((d) => isInsideOrSame(physical, d) || isInsideOrSame(d, physical))
    )
      return "another project's memory is not this task's to read";
  }
  return undefined;
}

/** `user:password@` in URLs, wherever they appear in a text; the host and path stay readable. */
export function redactUrlCredentials(text: string): string {
  return text.replace(
    /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:]+)(:[^\s/@]*)?@/gi,
    (_m, scheme: string) => `${scheme}***@`,
  );
}
