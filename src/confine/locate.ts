/**
 * The walk that answers "may this operation touch this path" and hands back the directory the
 * operation will use. Check and use are one thing: every component below a root is visited
 * physically (`..` pops to the real parent, a link is read and its target walked in the same
 * way, never followed by the kernel), and each directory is opened with O_NOFOLLOW relative to
 * the descriptor of its parent. On Linux the operation then addresses files through
 * `/proc/self/fd/<dir>/<name>`, which the kernel resolves through the open descriptor itself
 * (openat semantics): a folder swapped for a link after the check is never entered, because the
 * descriptor already points at the real folder inside the root.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { EngramError, errnoCode } from '../util/errors.js';
import { fsCalls, type OpenFile } from '../util/fs-calls.js';
import { type AccessKind, type DenyContext, readDenyReason, writeNameProblem } from './policy.js';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const MAX_LINKS = 40;
/** Linux exposes each descriptor as a directory path the kernel resolves through the descriptor. */
const FD_ANCHORS = process.platform === 'linux' && existsSync('/proc/self/fd');

export interface RootSpec {
  path: string;
  /** Writes allowed below it (reads always are, minus the deny-list). */
  write: boolean;
  /** When set, only these paths (relative to the root, `/`-separated) may be written. */
  only?: readonly string[];
}

export interface Root extends RootSpec {
  lexical: string;
}

/** A refusal: the operation must not happen. `reason` is safe to show to a model or a person. */
export class ConfinementError extends EngramError {
  readonly reason: string;
  readonly target: string;
  constructor(target: string, reason: string) {
    super('refused', `Refused: ${target}: ${reason}.`);
    this.reason = reason;
    this.target = target;
  }
}

/** Where an operation lands: the held parent directory and the final name in it. */
export interface Located {
  root: Root;
  /** The real path of the root. */
  rootReal: string;
  /** Physical names below the root, the final one included (empty for the root itself). */
  names: string[];
  /** A path that reaches the held parent directory itself (an fd path on Linux). */
  dir: string;
  /** The final name ('' when the target is the root). */
  name: string;
  /** Real absolute path of the target, for messages and deny checks. */
  physical: string;
  /** `/`-separated path below the root. */
  rel: string;
  /** Close the held descriptors. */
  release(): Promise<void>;
}

export interface LocateOptions {
  access: AccessKind;
  /** Create missing parent folders (writes that will happen now). */
  createParents?: boolean;
  /** Follow a link at the final component (reads); writes never do. */
  followFinal?: boolean;
  /** Let a write address the root folder itself (engram's own files in it, never a tool). */
  allowRoot?: boolean;
}

function segments(path: string): string[] {
  return path.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

function prefixLength(parts: string[], rootParts: string[]): number {
  if (rootParts.length > parts.length) return -1;
  for (let i = 0; i < rootParts.length; i++) if (parts[i] !== rootParts[i]) return -1;
  return rootParts.length;
}

interface Frame {
  name: string;
  handle: OpenFile;
}

/** Realpath of each root, created (0700) when a write needs it: a configured root is trusted. */
export async function rootReal(root: Root, create: boolean): Promise<string | undefined> {
  try {
    return await fsCalls().realpath(root.lexical);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' || !create) return undefined;
    await fsCalls().mkdir(root.lexical, { recursive: true, mode: 0o700 });
    return fsCalls().realpath(root.lexical);
  }
}

/** The root whose lexical or real spelling prefixes `parts` (longest first) and the rest. */
async function matchRoot(
  parts: string[],
  roots: readonly Root[],
): Promise<{ root: Root; rest: string[] } | undefined> {
  let best: { root: Root; rest: string[]; len: number } | undefined;
  for (const root of roots) {
    const real = await fsCalls()
      .realpath(root.lexical)
      .catch(() => root.lexical);
    for (const spelling of [root.lexical, real]) {
      const n = prefixLength(parts, segments(spelling));
      if (n >= 0 && (!best || n > best.len)) best = { root, rest: parts.slice(n), len: n };
    }
  }
  return best && { root: best.root, rest: best.rest };
}

/**
 * For a path no root spells directly (`cwd/../mem/a.md`, a link to the folder): the real path of
 * its longest existing prefix plus the rest. It only picks the root to start from; the part below
 * the root is still walked component by component, so nothing here decides what is touched.
 */
async function physicalSpelling(absolute: string): Promise<string[]> {
  const parts = absolute.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  for (let k = parts.length; k > 0; k--) {
    try {
      const real = await fsCalls().realpath(`${sep}${parts.slice(0, k).join(sep)}`);
      return [...segments(real), ...parts.slice(k)];
    } catch {
      // shorter prefix
    }
  }
  return parts;
}

function anchorOf(frame: Frame, physical: string): string {
  return FD_ANCHORS ? `/proc/self/fd/${frame.handle.fd}` : physical;
}

/**
 * Locate `path` (absolute, or relative to `base`) for `access`. Throws ConfinementError when it
 * leaves every root, passes through or ends at a link out, names a hidden or malformed entry for
 * a write, or falls under the credential deny-list. ENOENT for a missing parent of a read.
 */
export async function locate(
  path: string,
  base: string,
  roots: readonly Root[],
  deny: DenyContext,
  options: LocateOptions,
): Promise<Located> {
  const shown = path;
  if (path.includes('\0')) throw new ConfinementError(JSON.stringify(path), 'contains a NUL byte');
  const absolute = isAbsolute(path) ? path : `${resolve(base)}${sep}${path}`;
  const matched =
    (await matchRoot(segments(absolute), roots)) ??
    (await matchRoot(await physicalSpelling(absolute), roots));
  if (!matched) throw new ConfinementError(shown, 'outside the folders this task may use');
  const { root } = matched;
  const write = options.access === 'write';
  if (write && !root.write) throw new ConfinementError(shown, 'this folder is read-only here');
  const real = await rootReal(root, write && options.createParents === true);
  if (real === undefined) {
    const error = new Error(`ENOENT: ${shown}`) as NodeJS.ErrnoException;
    error.code = 'ENOENT';
    throw error;
  }
  const stack: Frame[] = [{ name: '', handle: await fsCalls().open(real, DIR_FLAGS) }];
  const release = async () => {
    for (const f of stack.splice(0)) await f.handle.close().catch(() => {});
  };
  const physicalOf = (extra: string[] = []) =>
    join(real, ...stack.slice(1).map((f) => f.name), ...extra);
  try {
    const rest = [...matched.rest];
    let links = 0;
    while (rest.length > 0) {
      const part = rest.shift()!;
      const final = rest.length === 0;
      if (part === '..') {
        if (stack.length === 1) throw new ConfinementError(shown, 'climbs out of its folder');
        await stack.pop()!.handle.close();
        if (final) return finish(stack, '', null);
        continue;
      }
      const top = stack.at(-1)!;
      const here = join(anchorOf(top, physicalOf()), part);
      const info = await fsCalls()
        .lstat(here)
        .catch((error: unknown) => {
          if (['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '')) return undefined;
          throw error;
        });
      if (info?.isSymbolicLink() && (!final || (options.followFinal && !write))) {
        if (++links > MAX_LINKS) throw new ConfinementError(shown, 'too many symbolic links');
        const target = await fsCalls().readlink(here);
        if (isAbsolute(target)) {
          const inner = await matchRoot(segments(target), [root]);
          const innerReal = inner && (await rootReal(root, false));
          if (!inner || innerReal !== real)
            throw new ConfinementError(shown, 'a symbolic link in it points outside its folder');
          while (stack.length > 1) await stack.pop()!.handle.close();
          rest.unshift(...inner.rest);
        } else {
          rest.unshift(...segments(target));
        }
        if (rest.length === 0) return finish(stack, '', null);
        continue;
      }
      if (final) {
        if (info?.isSymbolicLink())
          throw new ConfinementError(shown, 'it is a symbolic link; links are never written');
        return finish(stack, part, info ?? null);
      }
      if (write) {
        const problem = writeNameProblem(part);
        if (problem) throw new ConfinementError(shown, problem);
      }
      if (info === undefined) {
        if (write && !options.createParents) {
          // A check before a write: folders that do not exist yet are judged by name alone.
          const pending: string[] = [];
          for (const name of [part, ...rest]) {
            if (name === '..') {
              if (pending.length > 0) pending.pop();
              else if (stack.length > 1) await stack.pop()!.handle.close();
              else throw new ConfinementError(shown, 'climbs out of its folder');
              continue;
            }
            const problem = writeNameProblem(name);
            if (problem) throw new ConfinementError(shown, problem);
            pending.push(name);
          }
          return finish(stack, pending.join('/'), null);
        }
        if (!write || !options.createParents) {
          const error = new Error(`ENOENT: no such folder: ${shown}`) as NodeJS.ErrnoException;
          error.code = 'ENOENT';
          throw error;
        }
        await fsCalls()
          .mkdir(here, { mode: 0o700 })
          .catch((error: unknown) => {
            if (errnoCode(error) !== 'EEXIST') throw error;
          });
      }
      let handle: OpenFile;
      try {
        handle = await fsCalls().open(here, DIR_FLAGS);
      } catch (error) {
        // ELOOP/ENOTDIR: a link appeared where a folder was checked; never enter it.
        if (['ELOOP', 'ENOTDIR'].includes(errnoCode(error) ?? ''))
          throw new ConfinementError(shown, 'a folder in it is not a plain folder (a link?)');
        throw error;
      }
      stack.push({ name: part, handle });
    }
    return finish(stack, '', null);
  } catch (error) {
    await release();
    throw error;
  }

  function finish(frames: Frame[], name: string, info: Stats | null): Located {
    const names = [...frames.slice(1).map((f) => f.name), ...(name ? name.split('/') : [])];
    const physical = join(real as string, ...names);
    const rel = names.join('/');
    if (write) {
      if (names.length === 0 && !options.allowRoot)
        throw new ConfinementError(shown, 'the folder itself cannot be written');
      for (const n of name ? name.split('/') : []) {
        const problem = writeNameProblem(n);
        if (problem) throw new ConfinementError(shown, problem);
      }
      if (root.only && !root.only.includes(rel))
        throw new ConfinementError(shown, `only ${root.only.join(', ')} may be written here`);
      if (info && !info.isFile() && !info.isDirectory())
        throw new ConfinementError(shown, 'not a regular file');
    }
    const denied = readDenyReason(physical, deny);
    if (denied) throw new ConfinementError(shown, denied);
    const top = frames.at(-1)!;
    return {
      root,
      rootReal: real as string,
      names,
      dir: anchorOf(top, join(real as string, ...frames.slice(1).map((f) => f.name))),
      name,
      physical,
      rel,
      release,
    };
  }
}
