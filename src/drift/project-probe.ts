import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { findGitLocation } from '../config/git-root.js';
import {
  type Confinement,
  createConfinement,
  type DenyContext,
  readDenyReason,
  resolveDenyContext,
} from '../confine/index.js';
import { type Clock, systemClock } from '../util/clock.js';
import { isMissingPath } from '../util/missing-path.js';
import { realpathOrSelf } from '../util/realpath-or-self.js';
import { runGit } from './git.js';

/**
 * What claim checks need to know about the project. Two implementations: git (tracked and
 * untracked-but-not-ignored files, searched with `git grep -F`) and, outside a repository, a
 * bounded walk of the tree. Every answer may be `undefined`: "could not tell" is not "fails".
 */
export interface ProjectProbe {
  readonly root: string;
  readonly kind: 'git' | 'walk';
  /**
   * A key that changes whenever the answers may: HEAD and the worktree's status for git; for a
   * walk, a time bucket (nothing cheaper says the tree changed).
   */
  state(): Promise<string>;
  /**
   * A cheaper key read without starting a process (HEAD and the git index's size and mtime): what
   * a one-shot process on a turn's path can afford. It misses worktree edits git has not noticed
   * yet, so it only ever selects a cached answer; checks are always keyed by `state()`. Read
   * synchronously (a few small files): the prompt hook waits for no verdict, and a key still in
   * the thread pool when its scan ends left the turn without the cached one. Throws when unreadable.
   */
  quickState(): string;
  /** The project's files, relative with `/` separators (bounded). */
  files(): Promise<readonly string[]>;
  /**
   * Whether the text occurs in some project file (the memory directory and credential files
   * excluded: a `true` found in `.env` would confirm a secret to whoever wrote the memory).
   */
  contains(text: string): Promise<boolean | undefined>;
  /**
   * Whether a project path exists, asked through the confinement every door uses: undefined
   * (cannot tell) for a credential location or a path whose links lead out of the project.
   */
  exists(rel: string): Promise<boolean | undefined>;
  /** A project file's text through the same confinement; undefined when refused, unreadable, binary or over `maxBytes`. */
  readText(rel: string, maxBytes: number): Promise<string | undefined>;
}

export interface ProbeOptions {
  /** The memory directory: when it lies inside the project, a memory must not confirm itself. */
  memoryDir?: string;
  signal?: AbortSignal;
  /** Clock for the walk's state bucket (default the system clock). */
  clock?: Clock;
}

/** Outside git, cached checks expire after this long (a walk has no cheap change signal). */
export const WALK_STATE_TTL_MS = 5 * 60_000;
/** A walk looks at no more than this many files, and reads at most this much of each. */
export const WALK_MAX_FILES = 5_000;
export const WALK_MAX_FILE_BYTES = 512 * 1024;
const WALK_SKIP_DIRS = new Set([
  'node_modules',
  'dist',
  'build',
  'target',
  'vendor',
  '__pycache__',
]);

/** The probe for the project containing `cwd`: git when it is in a repository, else a walk. */
export function projectProbe(cwd: string, options: ProbeOptions = {}): ProjectProbe {
  const git = findGitLocation(cwd);
  return git ? gitProbe(git.topLevel, options) : walkProbe(cwd, options);
}

function memoryDirInside(root: string, memoryDir: string | undefined): string | undefined {
  if (memoryDir === undefined) return undefined;
  const rel = relative(root, memoryDir);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
    ? rel.split(sep).join('/')
    : undefined;
}

export function gitProbe(root: string, options: ProbeOptions = {}): ProjectProbe {
  const excluded = memoryDirInside(root, options.memoryDir);
  const pathspec = ['--', '.', ...(excluded ? [`:(exclude)${excluded}`] : []), ':(exclude).engram'];
  const reader = projectReader(root, options);
  let files: Promise<string[]> | undefined;
  let searchable: Promise<string[] | undefined> | undefined;
  const listing = () => {
    files ??= runGit(
      root,
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      options.signal,
    ).then((r) => (r.code === 0 ? [...new Set(r.stdout.split('\0').filter(Boolean))] : []));
    return files;
  };
  // git grep reads files itself: the credential files it would search are excluded by name, each
  // judged by the deny-list. Too many to name on a command line: no answer rather than a leak.
  const grepSpec = () => {
    searchable ??= listing().then((all) => {
      const denied = all.filter(reader.denied);
      if (denied.length > MAX_DENIED_EXCLUDES) return undefined;
      return [...pathspec, ...denied.map((f) => `:(exclude,literal)${f}`)];
    });
    return searchable;
  };
  return {
    root,
    kind: 'git',
    exists: reader.exists,
    readText: reader.readText,
    async state() {
      // One process, not two: `--branch` puts HEAD (`# branch.oid`) in the status output. Spawning
      // is the cost that matters on a hook's path.
      const status = await runGit(
        root,
        ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal'],
        options.signal,
      );
      if (status.code !== 0) throw new Error('git status failed');
      const head = /# branch\.oid ([^\0]+)/.exec(status.stdout)?.[1] ?? 'unknown';
      const hash = createHash('sha256').update(status.stdout).digest('hex').slice(0, 16);
      return `git:${head}:${hash}`;
    },
    quickState: () => quickGitState(root),
    files: listing,
    async contains(text) {
      const spec = await grepSpec();
      if (spec === undefined) return undefined;
      const r = await runGit(
        root,
        ['grep', '-q', '-I', '-F', '--untracked', '-e', text, ...spec],
        options.signal,
      );
      return r.code === 0 ? true : r.code === 1 ? false : undefined;
    },
  };
}

export function walkProbe(root: string, options: ProbeOptions = {}): ProjectProbe {
  const excluded = memoryDirInside(root, options.memoryDir);
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const reader = projectReader(root, options);
  let listing: Promise<string[]> | undefined;
  const texts = new Map<string, Promise<string | undefined>>();
  const list = () => {
    listing ??= walk(root, excluded, options.signal).then((all) =>
      all.filter((f) => !reader.denied(f)),
    );
    return listing;
  };
  return {
    root,
    kind: 'walk',
    exists: reader.exists,
    readText: reader.readText,
    async state() {
      return `walk:${Math.floor(now() / WALK_STATE_TTL_MS)}`;
    },
    quickState() {
      return `walk:${Math.floor(now() / WALK_STATE_TTL_MS)}`;
    },
    files: list,
    async contains(text) {
      for (const file of await list()) {
        if (options.signal?.aborted) return undefined;
        let content = texts.get(file);
        if (content === undefined) {
          content = reader.readText(file, WALK_MAX_FILE_BYTES);
          texts.set(file, content);
        }
        if ((await content)?.includes(text)) return true;
      }
      return options.signal?.aborted ? undefined : false;
    },
  };
}

/** More credential files than this in one project: identifier checks there answer "cannot tell". */
const MAX_DENIED_EXCLUDES = 200;

interface ProjectReader {
  /** True when the deny-list refuses reading this project path (`/`-separated, below the root). */
  denied(rel: string): boolean;
  exists(rel: string): Promise<boolean | undefined>;
  readText(rel: string, maxBytes: number): Promise<string | undefined>;
}

/**
 * The project read-only through the confinement (src/confine): the same walk for the check and the
 * read, no link followed out of the project, no hard link, the credential deny-list (`.ssh`,
 * `.aws`, `.env*`, keys, other projects' memory) with this project's memory folder as its own.
 */
function projectReader(root: string, options: ProbeOptions): ProjectReader {
  // Built at the first check, not with the probe: the prompt hook builds a probe every turn for
  // its quick key alone, and the deny context costs six realpath calls.
  let built: { deny: DenyContext; confinement: Confinement; realRoot: string } | undefined;
  const get = () => {
    if (built) return built;
    const deny = resolveDenyContext({
      ownMemoryDirs: options.memoryDir === undefined ? [] : [options.memoryDir],
    });
    const confinement = createConfinement({ roots: [{ path: root, write: false }], deny });
    built = { deny, confinement, realRoot: realpathOrSelf(root) };
    return built;
  };
  return {
    denied(rel) {
      const { deny, realRoot } = get();
      return readDenyReason(join(realRoot, ...rel.split('/')), deny) !== undefined;
    },
    async exists(rel) {
      try {
        return (await get().confinement.info(rel)) !== undefined;
      } catch {
        return undefined; // refused (credentials, a link out) or unreadable: cannot tell
      }
    },
    async readText(rel, maxBytes) {
      try {
        const { text } = await get().confinement.readText(rel, { maxBytes });
        return text.includes('\0') ? undefined : text;
      } catch {
        return undefined;
      }
    },
  };
}

/** HEAD's commit and the index's stat, from the files in `.git` (linked worktrees too). */
export function quickGitState(root: string): string {
  let gitDir = join(root, '.git');
  if (statSync(gitDir).isFile()) {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, 'utf8'));
    if (!m?.[1]) throw new Error('unreadable .git file');
    gitDir = resolve(root, m[1].trim());
  }
  const common = readOr(
    join(gitDir, 'commondir'),
    (t) => resolve(gitDir, t.trim()),
    () => gitDir,
  );
  const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  let commit = head;
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  if (ref) {
    commit = readOr(
      join(common, ref),
      (t) => t.trim(),
      () => {
        const packed = readOr(
          join(common, 'packed-refs'),
          (t) => t,
          () => '',
        );
        return (
          new RegExp(`^([0-9a-f]+) ${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(
            packed,
          )?.[1] ?? `${ref}:unborn`
        );
      },
    );
  }
  let index = 'no-index';
  try {
    const stats = statSync(join(gitDir, 'index'));
    index = `${stats.size}:${stats.mtimeMs}`;
  } catch {
    // a repository with nothing staged yet has no index
  }
  return `quick:${dirname(gitDir) === root ? '' : gitDir}:${commit}:${index}`;
}

/**
 * A small file's text mapped by `use`, or `otherwise()` when it cannot be read. A missing file
 * (`commondir` in every repository that is not a worktree, a ref kept only in `packed-refs`) is
 * asked for without an exception: this runs on every prompt, and a thrown ENOENT with its stack
 * cost more than the rest of the quick key.
 */
function readOr<T>(path: string, use: (text: string) => T, otherwise: () => T): T {
  if (isMissingPath(path)) return otherwise();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return otherwise();
  }
  return use(text);
}

async function walk(root: string, excluded: string | undefined, signal?: AbortSignal) {
  const out: string[] = [];
  const queue = [''];
  while (queue.length > 0 && out.length < WALK_MAX_FILES && !signal?.aborted) {
    const rel = queue.shift()!;
    if (rel === excluded) continue;
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.name.startsWith('.')) continue; // .git, .engram, editor state
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && !WALK_SKIP_DIRS.has(e.name)) queue.push(path);
      else if (e.isFile() && out.length < WALK_MAX_FILES) out.push(path);
    }
  }
  return out;
}
