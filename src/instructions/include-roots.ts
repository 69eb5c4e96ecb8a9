/**
 * The folders each kind of instruction file may read from, handed to the one confinement
 * (`src/confine/`) that reads every file. Pure functions of paths and settings: the deny-list of
 * credential locations is the confinement's and holds under every root, these only say where.
 *
 * Claude Code's rule, mirrored: a project's files may include files inside the project; an
 * import that resolves outside it is "external" and needs the user's approval. Engram has no
 * approval dialog, so an external include of a project or local file is refused unless the
 * user's own settings (`allowExternalIncludes`) list its folder. The user's own files
 * (`~/.claude/CLAUDE.md`, user rules) are trusted with their home folder; managed files with the
 * machine.
 *
 * A folder above the project and outside home (a shared `/tmp`, `/srv/team`) is trusted the way
 * Claude Code trusts a folder: by who controls it (`ancestorTrust`).
 */
import { parse, resolve } from 'node:path';
import { isInsideOrSame } from '../confine/index.js';
import type { InstructionType } from './types.js';

export interface IncludeScopeInput {
  homedir: string;
  engramHome: string;
  /** The git checkout (and a worktree's main checkout), or the working directory without git. */
  projectRoots: readonly string[];
  /** For project and local files: the folder the discovered file sits in. */
  ownDir?: string;
  /** The user's `allowExternalIncludes`: `true` for anywhere, or the folders it lists. */
  allow: boolean | readonly string[];
}

export interface IncludeScope {
  /** Folders whose files may be read; a folder inside another is folded into it. */
  roots: string[];
  /** Set for project and local files: home's hidden entries stay closed except below these. */
  homeDotEntriesOpenBelow?: string[];
}

/** Where a file of `type`, and everything it includes, may read from. */
export function includeScope(type: InstructionType, input: IncludeScopeInput): IncludeScope {
  const fsRoot = parse(resolve(input.homedir)).root;
  const allowed = input.allow === true ? [fsRoot] : [...(input.allow || [])];
  if (type === 'managed') return { roots: [fsRoot] };
  if (type === 'user')
    return {
      roots: foldNested([input.homedir, input.engramHome, ...input.projectRoots, ...allowed]),
    };
  // The file system root vouches for nothing: a stray /CLAUDE.md must not open the machine.
  const own = input.ownDir && input.ownDir !== parse(input.ownDir).root ? [input.ownDir] : [];
  const named = [...input.projectRoots, ...own, ...allowed].map((r) => resolve(r));
  const home = resolve(input.homedir);
  return {
    roots: foldNested(named),
    // A root that holds the whole home (the project is ~, `true`, a listed ~) does not open
    // ~/.config or ~/.claude; a folder named inside one of them (~/.dotfiles, ~/.config/team) does.
    homeDotEntriesOpenBelow: named.filter((r) => r !== home && isInsideOrSame(r, home)),
  };
}

/**
 * Distinct roots with every folder that lies inside another dropped: the confinement walks a
 * path from the longest root that spells it, so a nested root would stop a link inside it from
 * reaching the rest of its containing root (`packages/app/CLAUDE.md -> ../../AGENTS.md`).
 */
export function foldNested(roots: readonly string[]): string[] {
  const sorted = [...new Set(roots.map((r) => resolve(r)))].sort((a, b) => a.length - b.length);
  const kept: string[] = [];
  for (const root of sorted) if (!kept.some((k) => isInsideOrSame(root, k))) kept.push(root);
  return kept;
}

/** Who owns a folder and its permission bits (from `stat`). */
export interface FolderOwnership {
  uid: number;
  mode: number;
}

export interface AncestorTrustInput {
  /** The folder an instruction file was found in, on the way up from the working directory. */
  dir: string;
  homedir: string;
  projectRoots: readonly string[];
  /** This process's user id; undefined where the platform has none (no ownership rule there). */
  uid: number | undefined;
  /** The folder's owner and mode; undefined when it could not be looked at. */
  folder: FolderOwnership | undefined;
}

export interface AncestorTrust {
  /** Set when only files of these owners load from the folder (the user and root). */
  owners?: number[];
  /** The folder vouches for its neighbours: its files may include files beside them. */
  vouches: boolean;
}

/**
 * How far an ancestor folder's instruction files are trusted. Inside the project or the home
 * folder: as before, the folder vouches for its neighbours. Above the project and outside home,
 * anyone who can write the folder could plant a CLAUDE.md there (`/tmp/CLAUDE.md` with
 * `@./other-user/notes`): its files load only when they belong to the user or root, and the
 * folder opens its neighbours to includes only when it belongs to the user or root and nobody
 * else may write it (no group or world write bit). Pure.
 */
export function ancestorTrust(input: AncestorTrustInput): AncestorTrust {
  const near = [...input.projectRoots, input.homedir].some((r) =>
    isInsideOrSame(resolve(input.dir), resolve(r)),
  );
  if (near || input.uid === undefined) return { vouches: true };
  const owners = [...new Set([input.uid, 0])];
  const folder = input.folder;
  const vouches =
    folder !== undefined && owners.includes(folder.uid) && (folder.mode & 0o022) === 0;
  return { owners, vouches };
}
