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
