/**
 * Discover, load and assemble the instruction files for a working directory. Sources load in
 * reverse order of priority (the last loaded weighs most): managed, user, then every folder from
 * the file system root down to the working directory, project files before local ones.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, parse, resolve } from 'node:path';
import {
  type EngramEnvironment,
  engramHome,
  findGitLocation,
  type GitLocation,
  managedDir,
  readSettingsFile,
  type SettingsFile,
  settingsPaths,
} from '../config/index.js';
import { type Confinement, createConfinement, isInsideOrSame } from '../confine/index.js';
import { RULES_DIR_ENTRY } from './constants.js';
import { ancestorTrust, includeScope } from './include-roots.js';
import { resolveInstructionSettings } from './instruction-settings.js';
import { type Chain, type LoadContext, loadInstructionFile } from './load-file.js';
import { renderInstructionsPrompt } from './prompts.js';
import { listRuleFiles } from './rules-dir.js';
import type {
  InstructionReport,
  InstructionsLoadReason,
  InstructionsResult,
  InstructionType,
  LoadedInstructionFile,
} from './types.js';

/** Managed files are read whatever the user configured: an administrator's policy always applies. */
const MANAGED_FILES = ['AGENTS.md', 'CLAUDE.md'];

/** What every discovery step shares. */
interface Discovery {
  environment: EngramEnvironment;
  cwd: string;
  names: readonly string[];
  reports: InstructionReport[];
  git: GitLocation | undefined;
  projectRoots: string[];
  /** The confinement a chain of `type` reads through (`ownDir`: where a project file sits). */
  confinement: (type: InstructionType, ownDir?: string) => Confinement;
  load: (path: string, chain: Chain) => Promise<void>;
}

/** Load without the cache. Never throws for a file that cannot be read: it is reported. */
export async function readInstructions(
  environment: EngramEnvironment,
  loadReason: InstructionsLoadReason = 'session_start',
): Promise<InstructionsResult> {
  const cwd = resolve(environment.cwd);
  const reports: InstructionReport[] = [];
  const { settings, reports: settingReports } = resolveInstructionSettings(
    readSettingsSafely(environment, reports),
    environment.homedir,
  );
  reports.push(...settingReports);
  const ctx: LoadContext = {
    homedir: environment.homedir,
    excludes: settings.excludes,
    seen: new Set(),
    reports,
  };
  const git = findGitLocation(cwd);
  const projectRoots = git ? [...new Set([git.topLevel, git.commonRoot])] : [cwd];
  const loaded: LoadedInstructionFile[] = [];
  // One confinement per distinct scope, not per ancestor folder: every folder inside the project
  // folds into the same roots, and each confinement resolves its deny-list's real paths anew.
  const confinements = new Map<string, Confinement>();
  const discovery: Discovery = {
    environment,
    cwd,
    names: settings.fileNames,
    reports,
    git,
    projectRoots,
    confinement: (type, ownDir) => {
      const scope = includeScope(type, {
        homedir: environment.homedir,
        engramHome: engramHome(environment),
        projectRoots,
        ...(ownDir !== undefined ? { ownDir } : {}),
        allow: settings.allowExternalIncludes,
      });
      const key = JSON.stringify([scope.roots, scope.homeDotEntriesOpenBelow ?? null]);
      const known = confinements.get(key);
      if (known) return known;
      const made = createConfinement({
        roots: scope.roots.map((path) => ({ path, write: false })),
        deny: {
          homedir: environment.homedir,
          engramHome: engramHome(environment),
          // No project's memory folder is an instruction file's to include, this one's neither.
          ownMemoryDirs: [],
          ...(scope.homeDotEntriesOpenBelow
            ? { homeDotEntriesOpenBelow: scope.homeDotEntriesOpenBelow }
            : {}),
        },
      });
      confinements.set(key, made);
      return made;
    },
    load: async (path, chain) => {
      loaded.push(...(await loadInstructionFile(ctx, path, chain)));
    },
  };
  const managed = managedDir(environment);
  const managedChain: Chain = { type: 'managed', confinement: discovery.confinement('managed') };
  for (const name of MANAGED_FILES) await discovery.load(join(managed, name), managedChain);
  await loadUserFiles(discovery);
  await loadDirectoryFiles(discovery);
  const files = loaded.filter((f) => !f.conditional);
  // A file that loads anyway is not repeated when a conditional rule that includes it applies.
  const always = new Set(files.map((f) => f.realPath));
  return {
    cwd,
    files,
    conditionalRules: loaded.filter((f) => f.conditional && !always.has(f.realPath)),
    prompt: renderInstructionsPrompt(files),
    reports,
    loadReason,
  };
}

async function loadUserFiles(d: Discovery): Promise<void> {
  const { environment, names } = d;
  // The user's own files may read their home, dot folders included, minus the deny-list.
  const chain: Chain = { type: 'user', confinement: d.confinement('user') };
  if (names.includes('AGENTS.md')) await d.load(join(engramHome(environment), 'AGENTS.md'), chain);
  if (names.includes('CLAUDE.md') || names.includes('.claude/CLAUDE.md'))
    await d.load(join(environment.homedir, '.claude', 'CLAUDE.md'), chain);
  if (names.includes(RULES_DIR_ENTRY)) {
    // User rules' globs are relative to the working directory: they have no project of their own.
    const rulesDir = join(environment.homedir, '.claude', 'rules');
    for (const rule of await listRuleFiles(rulesDir, d.reports))
      await d.load(rule, { ...chain, ruleBaseDir: d.cwd });
  }
}

/** Every folder from the root down to the working directory: project files, then local ones. */
async function loadDirectoryFiles(d: Discovery): Promise<void> {
  const { git } = d;
  // A nested worktree (e.g. <main>/.claude/worktrees/x) has its own copy of the checked-in files;
  // the main checkout's copies would load twice and may be from another branch.
  const nested =
    git !== undefined &&
    git.topLevel !== git.commonRoot &&
    isInsideOrSame(git.topLevel, git.commonRoot);
  for (const dir of ancestorsFromRoot(d.cwd)) {
    const skipProject =
      nested && isInsideOrSame(dir, git.commonRoot) && !isInsideOrSame(dir, git.topLevel);
    // The folder a file sits in vouches for its neighbours (never the file system root), unless
    // it lies above the project, outside home, and others control it (a shared /tmp).
    const trust = ancestorTrust({
      dir,
      homedir: d.environment.homedir,
      projectRoots: d.projectRoots,
      uid: process.getuid?.(),
      folder: await stat(dir).then(
        (s) => ({ uid: s.uid, mode: s.mode }),
        () => undefined,
      ),
    });
    const confinement = d.confinement('project', dir);
    const narrowed = {
      ...(trust.vouches ? {} : { includes: d.confinement('project') }),
      ...(trust.owners ? { owners: trust.owners } : {}),
    };
    for (const name of orderedNames(d.names)) {
      const type = isLocalName(name) ? 'local' : 'project';
      const path = join(dir, name);
      if (type === 'project' && skipProject) {
        // `.claude/CLAUDE.md` is reached from its folder and from the folder above: say it once.
        const known = d.reports.some((r) => r.kind === 'worktree-skipped' && r.path === path);
        if (!known && existsSync(path)) d.reports.push(worktreeReport(path));
        continue;
      }
      if (name === RULES_DIR_ENTRY) {
        for (const rule of await listRuleFiles(path, d.reports))
          await d.load(rule, { type, confinement, ...narrowed, ruleBaseDir: dir });
      } else await d.load(path, { type, confinement, ...narrowed });
    }
  }
}

/** `/`, `/a`, `/a/b` for `/a/b`: broadest first, so the working directory loads last. */
export function ancestorsFromRoot(cwd: string): string[] {
  const dirs: string[] = [];
  let dir = resolve(cwd);
  const root = parse(dir).root;
  for (;;) {
    dirs.push(dir);
    if (dir === root) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dirs.reverse();
}

/** Local files (`*.local.md`, `*.override.md`) are personal and come after the project's files. */
export function isLocalName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith('.local.md') || lower.endsWith('.override.md');
}

function orderedNames(names: readonly string[]): string[] {
  return [...names.filter((n) => !isLocalName(n)), ...names.filter(isLocalName)];
}

/**
 * Each settings file on its own: a malformed file is reported and skipped, so a repository that
 * ships a broken `.engram/settings.json` cannot switch off the user's own excludes.
 */
function readSettingsSafely(
  environment: EngramEnvironment,
  reports: InstructionReport[],
): SettingsFile[] {
  const paths = settingsPaths(environment);
  const files: SettingsFile[] = [];
  for (const source of ['project', 'user', 'local', 'policy'] as const) {
    try {
      files.push(readSettingsFile(source, paths[source]));
    } catch (error) {
      reports.push({
        kind: 'settings',
        severity: 'warning',
        path: paths[source],
        message: `Settings not applied: ${(error as Error).message}`,
      });
    }
  }
  return files;
}

function worktreeReport(path: string): InstructionReport {
  return {
    kind: 'worktree-skipped',
    severity: 'info',
    path,
    message: 'Skipped: checked in to the main checkout; this worktree has its own copy.',
  };
}
