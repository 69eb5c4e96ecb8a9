import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

export interface GitLocation {
  /** The checkout that contains `cwd` (a worktree's own top folder for linked worktrees). */
  topLevel: string;
  /** The main checkout: shared by all worktrees of one repository. */
  commonRoot: string;
  /** True when `topLevel` is a linked worktree (its `.git` is a file). */
  isWorktree: boolean;
}

/** Find the git checkout containing `cwd` without running git (fast and works without git installed). */
export function findGitLocation(cwd: string): GitLocation | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) {
      const info = statSync(dotGit);
      if (info.isDirectory()) return { topLevel: dir, commonRoot: dir, isWorktree: false };
      const common = worktreeCommonRoot(dir, dotGit);
      if (common) return { topLevel: dir, commonRoot: common, isWorktree: true };
      return { topLevel: dir, commonRoot: dir, isWorktree: false };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** `.git` file → `gitdir: <main>/.git/worktrees/<name>` → commondir → main checkout. */
function worktreeCommonRoot(dir: string, dotGitFile: string): string | undefined {
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGitFile, 'utf8'));
    if (!m?.[1]) return undefined;
    const gitDir = isAbsolute(m[1].trim()) ? m[1].trim() : resolve(dir, m[1].trim());
    // A linked worktree's git dir names its common dir; a submodule's (.git/modules/x) does not and
    // is a project of its own, keyed by its own checkout.
    const commonFile = join(gitDir, 'commondir');
    let commonDir: string;
    if (existsSync(commonFile))
      commonDir = resolve(gitDir, readFileSync(commonFile, 'utf8').trim());
    else if (/[\\/]worktrees[\\/][^\\/]+$/.test(gitDir)) commonDir = dirname(dirname(gitDir));
    else return undefined;
    return basename(commonDir) === '.git' ? dirname(commonDir) : undefined;
  } catch {
    return undefined;
  }
}

/** `/home/me/src/app` → `-home-me-src-app` (Claude Code's project-folder convention). Pure. */
export function sanitizeProjectPath(path: string): string {
  return path.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Hex digits of the path hash in a project key. */
export const PROJECT_KEY_HASH_LENGTH = 8;

/**
 * The folder name of a project under `$ENGRAM_HOME/projects/`: the readable sanitized root plus
 * the first 8 hex digits of the root's sha256 (`/home/me/my-app` → `-home-me-my-app-1f2e3d4c`).
 * Always hashed: sanitizing turns `/` into `-` too, so almost every path shares its sanitized name
 * with another (`/a/my-app`, `/a/my.app`, `/a/my_app`, `/a/my app`, `/a/my/app`), and a key that
 * is never the bare sanitized name can never land in a folder the old scheme made for another
 * path (such folders are only taken over by the ownership-checked migration). Pure.
 */
export function projectKey(root: string): string {
  const hash = createHash('sha256').update(root, 'utf8').digest('hex');
  return `${sanitizeProjectPath(root)}-${hash.slice(0, PROJECT_KEY_HASH_LENGTH)}`;
}
