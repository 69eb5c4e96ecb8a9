/**
 * The shared checker of the attack corpus: after a door ran, nothing outside the allowed roots
 * changed or appeared (a snapshot of paths, kinds, sizes, mtimes, inodes and content hashes
 * before and after), neither the canary of the fake credentials nor the outside sentinel appears
 * in any text the door produced, every index line is one entry pointing at a real file, and every
 * wrapper-closing body stays inside the memory wrapper as an independent tag reader sees it.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { lexer, type Token } from 'marked';
import type { World } from './attack-corpus.js';

export type Snapshot = Map<string, string>;

function isUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root + sep);
}

async function entry(path: string): Promise<string | undefined> {
  const s = await lstat(path).catch(() => undefined);
  if (!s) return undefined;
  const base = `ino=${s.ino} size=${s.size} mtime=${s.mtimeMs} mode=${s.mode}`;
  if (s.isSymbolicLink()) return `link ${base} -> ${await readlink(path)}`;
  if (s.isDirectory()) return `dir ino=${s.ino} mode=${s.mode}`;
  if (!s.isFile()) return `other ${base}`;
  const hash = createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
  return `file ${base} sha256=${hash}`;
}

/**
 * What engram owns besides the memory directory: ENGRAM_HOME (its caches, logs, this project's
 * default folder), minus what the corpus planted there as someone else's: another project's
 * memory folder and engram's own settings files.
 */
function engramOwns(w: World, path: string): boolean {
  if (!isUnder(path, w.engramHome) || path === w.engramHome) return false;
  const others = join(w.engramHome, 'projects', 'other-project');
  if (isUnder(path, others) || isUnder(others, path)) return false;
  return !/^settings(\..*)?\.json$/.test(relative(w.engramHome, path));
}

/**
 * Every entry of the world outside `allowed` (the memory directory and what engram owns always),
 * plus `/etc/passwd`, which a link in the memory directory points at. Links are recorded, never
 * followed.
 */
export async function snapshotOutside(
  w: World,
  allowed: readonly string[] = [],
): Promise<Snapshot> {
  const skip = [w.memory, ...allowed];
  const out: Snapshot = new Map();
  async function walk(dir: string): Promise<void> {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(dir, name);
      if (skip.some((root) => isUnder(path, root)) || engramOwns(w, path)) continue;
      const e = await entry(path);
      if (e === undefined) continue;
      out.set(relative(w.top, path), e);
      if (e.startsWith('dir ')) await walk(path);
    }
  }
  await walk(w.top);
  out.set('/etc/passwd', (await entry('/etc/passwd')) ?? 'missing');
  return out;
}

/** What changed between two snapshots: `+path` appeared, `-path` vanished, `~path` changed. */
export function snapshotDiff(before: Snapshot, after: Snapshot): string[] {
  const changes: string[] = [];
  for (const [path, e] of after) {
    const was = before.get(path);
    if (was === undefined) changes.push(`+${path}`);
    else if (was !== e) changes.push(`~${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`-${path}`);
  return changes.sort();
}

/** Names of the texts that carry the canary or the outside sentinel (an escape either way). */
export function leaks(w: World, texts: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [name, text] of Object.entries(texts)) {
    if (text.includes(w.canary)) found.push(`${name}: canary`);
    if (text.includes(w.sentinel)) found.push(`${name}: outside sentinel`);
  }
  return found;
}

/** Every file below `dirs` (links not followed) whose bytes hold the canary. */
export async function canaryFiles(w: World, dirs: readonly string[]): Promise<string[]> {
  const hits: string[] = [];
  async function walk(dir: string): Promise<void> {
    for (const d of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, d.name);
      if (w.credentials.includes(path)) continue;
      if (d.isDirectory()) await walk(path);
      else if (d.isFile() && (await lstat(path)).nlink === 1) {
        const text = await readFile(path, 'utf8').catch(() => '');
        if (text.includes(w.canary)) hits.push(relative(w.top, path));
      }
    }
  }
  for (const dir of dirs) await walk(dir);
  return hits;
}

function linksOf(tokens: readonly Token[], into: string[]): string[] {
  for (const t of tokens) {
    if (t.type === 'link') into.push((t as { href: string }).href);
    const nested = (t as { tokens?: Token[]; items?: Token[] }).tokens ?? [];
    const items = (t as { items?: Token[] }).items ?? [];
    linksOf([...nested, ...items], into);
  }
  return into;
}

/**
 * Index lines an independent markdown reader (marked) takes apart wrongly: a line that is not
 * one link, or whose link does not name a regular file in the memory directory (links are not
 * followed).
 */
export async function indexProblems(
  memory: string,
  options: { movedFolders?: readonly string[] } = {},
): Promise<string[]> {
  const text = await readFile(join(memory, 'MEMORY.md'), 'utf8').catch(() => '');
  const problems: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const links = linksOf(lexer(line), []);
    if (links.length !== 1) {
      problems.push(`${JSON.stringify(line)}: ${links.length} links`);
      continue;
    }
    let target = links[0]!;
    try {
      target = decodeURIComponent(target);
    } catch {
      // a raw target is read as it is
    }
    // The race form's folder was moved by the attacker while files were written into it: a line
    // for a file there points where the file was written, and the file moved with its folder.
    if ((options.movedFolders ?? []).some((d) => target.startsWith(`${d}/`))) continue;
    const s = await lstat(join(memory, target)).catch(() => undefined);
    if (!s?.isFile()) problems.push(`${JSON.stringify(line)}: ${target} is not a memory file`);
  }
  return problems;
}

const WRAPPERS = ['system-reminder', 'recalled-memories', 'memory', 'session-notes'];

/**
 * Where each occurrence of `marker` sits in the wrapper stack, read the way an HTML tokenizer
 * reads tags (a `<`, optional whitespace and `/`, a name up to whitespace, `/` or `>`). A marker
 * outside a `memory` element has escaped its wrapper. Returns one entry per escaped occurrence.
 */
export function wrapperEscapes(text: string, marker: string): string[] {
  const stack: string[] = [];
  const escapes: string[] = [];
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    const at = text.indexOf(marker, i);
    if (at >= 0 && (lt < 0 || at < lt)) {
      if (!stack.includes('memory')) escapes.push(`at ${at}, inside [${stack.join(' > ')}]`);
      i = at + marker.length;
      continue;
    }
    if (lt < 0) break;
    let j = lt + 1;
    let closing = false;
    while (j < text.length && (/\s/u.test(text[j]!) || text[j] === '/')) {
      if (text[j] === '/') closing = true;
      j++;
    }
    let k = j;
    while (k < text.length && !/[\s/>]/u.test(text[k]!)) k++;
    const name = text.slice(j, k).toLowerCase();
    const end = text.indexOf('>', k);
    const selfClosing = end > 0 && text[end - 1] === '/';
    if (WRAPPERS.includes(name) && !selfClosing) {
      if (closing) {
        const top = stack.lastIndexOf(name);
        if (top >= 0) stack.splice(top);
      } else stack.push(name);
    }
    i = lt + 1;
  }
  return escapes;
}
