import { homedir as osHomedir } from 'node:os';
import { resolve } from 'node:path';
import { engramHomeFrom } from './engram-home.js';
import { findGitLocation } from './git-root.js';

/** Where engram runs: everything that would otherwise be read from globals, passed in. */
export interface EngramEnvironment {
  cwd: string;
  env: Record<string, string | undefined>;
  homedir: string;
}

export function defaultEnvironment(): EngramEnvironment {
  return { cwd: process.cwd(), env: process.env, homedir: osHomedir() };
}

/** `$ENGRAM_HOME`, default `~/.engram`. */
export function engramHome(environment: EngramEnvironment): string {
  return engramHomeFrom(environment.env, environment.cwd, environment.homedir);
}

/** Managed (admin) files live here: `settings.json`, `AGENTS.md`. `ENGRAM_MANAGED_DIR` moves it for tests and packaging. */
export function managedDir(environment: EngramEnvironment): string {
  return environment.env.ENGRAM_MANAGED_DIR?.trim() || '/etc/engram';
}

/** The folder a project is keyed by: the git root shared by worktrees, else the working directory. */
export function projectRoot(environment: EngramEnvironment): string {
  const git = findGitLocation(environment.cwd);
  return git ? git.commonRoot : resolve(environment.cwd);
}

/** The checkout containing cwd (a worktree's own folder), where per-checkout settings live. */
export function checkoutRoot(environment: EngramEnvironment): string {
  return findGitLocation(environment.cwd)?.topLevel ?? resolve(environment.cwd);
}
