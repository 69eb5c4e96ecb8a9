import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_PREFIX, tempFileWriterPid } from '../util/atomic-write.js';
import { type Clock, systemClock } from '../util/clock.js';
import { errnoCode } from '../util/errors.js';
import {
  claimHolderState,
  clearDeadClaims,
  isProcessAlive,
  parseClaim,
  STAGING_SUFFIX,
} from '../util/file-lock.js';
import { FILE_CONCURRENCY, mapPool } from '../util/pool.js';
import { openRegularFile } from '../util/regular-file.js';
import type { MemoryHeader } from './types.js';

/** What the audit finds on disk beside the memories themselves; each has its own `kind`. */
export type FileFindingKind =
  | 'leftover_temp'
  | 'stale_lock_file'
  | 'dead_lock_holder'
  | 'not_regular_file'
  | 'truncated_body';

export interface FileFinding {
  kind: FileFindingKind;
  file: string;
  message: string;
  /** True when `engram audit --fix` removes it. */
  fixable: boolean;
}

/** A temp file without a PID in its name counts as abandoned after this long. */
const TEMP_GRACE_MS = 60 * 60 * 1000;

interface Entry {
  rel: string;
  dirent: Dirent;
}

/** Every entry below `dir` (dot folders too, `.git` excepted): where crashed writers leave things. */
async function walkAll(dir: string, rel = '', out: Entry[] = []): Promise<Entry[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(dir, rel), { withFileTypes: true });
  } catch (error) {
    if (['ENOENT', 'ENOTDIR', 'EACCES'].includes(errnoCode(error) ?? '')) return out;
    throw error;
  }
  for (const dirent of entries) {
    const childRel = rel === '' ? dirent.name : `${rel}/${dirent.name}`;
    out.push({ rel: childRel, dirent });
    if (dirent.isDirectory() && dirent.name !== '.git' && !isLockDir(dirent.name)) {
      await walkAll(dir, childRel, out);
    }
  }
  return out;
}

function isLockDir(name: string): boolean {
  return name.endsWith('.lock') || name.endsWith('.acquire');
}

/** Findings about temp files, locks and special files anywhere below `dir`. */
export async function auditFiles(dir: string, clock: Clock = systemClock): Promise<FileFinding[]> {
  const nowMs = clock.now();
  const findings: FileFinding[] = [];
  for (const { rel, dirent } of await walkAll(dir)) {
    const name = dirent.name;
    if (name.startsWith(TEMP_PREFIX)) {
      const finding = await tempFinding(dir, rel, nowMs);
      if (finding) findings.push(finding);
    } else if (name.includes('.stale-') || name.endsWith(STAGING_SUFFIX)) {
      const finding = staleLockFinding(rel, name);
      if (finding) findings.push(finding);
    } else if (isLockDir(name)) {
      findings.push(...(await lockFindings(dir, rel, dirent)));
    } else if (name.endsWith('.md') && !dirent.isFile() && !dirent.isDirectory()) {
      if (dirent.isSymbolicLink()) continue; // links are the confinement's findings
      findings.push({
        kind: 'not_regular_file',
        file: rel,
        message: `${rel} is not a regular file (a FIFO, device or socket); engram never opens it. Remove it or replace it with a real file.`,
        fixable: false,
      });
    }
  }
  return findings;
}

async function tempFinding(
  dir: string,
  rel: string,
  nowMs: number,
): Promise<FileFinding | undefined> {
  const name = rel.split('/').pop() ?? rel;
  const pid = tempFileWriterPid(name);
  const info = await lstat(join(dir, rel)).catch(() => undefined);
  if (!info) return undefined;
  // A live writer's temp file is work in progress, not a leftover.
  if (pid !== undefined ? isProcessAlive(pid) : nowMs - info.mtimeMs < TEMP_GRACE_MS)
    return undefined;
  return {
    kind: 'leftover_temp',
    file: rel,
    message: `${rel} (${info.size} bytes) is a temp file left by an interrupted write; the file it was replacing is intact. \`engram audit --fix\` deletes it.`,
    fixable: true,
  };
}

function staleLockFinding(rel: string, name: string): FileFinding | undefined {
  if (name.endsWith(STAGING_SUFFIX)) {
    const claim = parseClaim(
      name
        .replace(/\.acquiring$/, '')
        .split('.')
        .pop() ?? '',
    );
    if (claim && claimHolderState(claim) !== 'dead') return undefined; // acquiring right now
  }
  return {
    kind: 'stale_lock_file',
    file: rel,
    message: `${rel} was left beside a lock by a process that died while taking or clearing it; it holds no lock. \`engram audit --fix\` deletes it.`,
    fixable: true,
  };
}

async function lockFindings(dir: string, rel: string, dirent: Dirent): Promise<FileFinding[]> {
  const path = join(dir, rel);
  if (dirent.isFile()) {
    // A lock file of an older engram: its PID as text.
    const pid = Number.parseInt((await readFile(path, 'utf8').catch(() => '')).trim(), 10);
    if (!Number.isInteger(pid) || pid <= 0 || isProcessAlive(pid)) return [];
    return [deadHolder(rel, pid)];
  }
  if (!dirent.isDirectory()) return [];
  const names = await readdir(path).catch(() => [] as string[]);
  return names.flatMap((n) => {
    const claim = parseClaim(n);
    return claim && claimHolderState(claim) === 'dead' ? [deadHolder(rel, claim.pid)] : [];
  });
}

function deadHolder(rel: string, pid: number): FileFinding {
  return {
    kind: 'dead_lock_holder',
    file: rel,
    message: `${rel} is held by PID ${pid}, which is no longer running; the next write takes it over, and \`engram audit --fix\` clears it now.`,
    fixable: true,
  };
}

/** Remove what `auditFiles` marked fixable; returns the findings it fixed. */
export async function fixFileFindings(
  dir: string,
  findings: readonly FileFinding[],
): Promise<FileFinding[]> {
  const fixed: FileFinding[] = [];
  for (const f of findings) {
    if (!f.fixable) continue;
    const path = join(dir, f.file);
    try {
      if (f.kind === 'dead_lock_holder') {
        const info = await lstat(path);
        if (info.isDirectory()) await clearDeadClaims(path);
        else await unlink(path);
      } else {
        await rm(path, { recursive: true, force: true });
      }
      fixed.push(f);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') fixed.push(f);
      else throw error;
    }
  }
  return fixed;
}

const BODY_PROBE_BYTES = 8192;

/**
 * Memory files cut short: empty, or small enough to see whole and ending inside the frontmatter
 * or right after it (a writer killed mid-file, as non-atomic writers leave them).
 */
export async function truncatedBodies(memories: readonly MemoryHeader[]): Promise<FileFinding[]> {
  const found = await mapPool(memories, FILE_CONCURRENCY, async (m) => {
    if (m.unreadable !== undefined) return undefined;
    const reason = await truncation(m.path).catch(() => undefined);
    if (!reason) return undefined;
    return {
      kind: 'truncated_body' as const,
      file: m.file,
      message: `${m.file} ${reason}; it looks cut off by an interrupted write. Rewrite it (or delete it and save the memory again).`,
      fixable: false,
    };
  });
  return found.filter((f): f is NonNullable<typeof f> => f !== undefined);
}

async function truncation(path: string): Promise<string | undefined> {
  // As the scan reads: a memory file swapped for a link since is not followed.
  const { handle, info } = await openRegularFile(path, { followLinks: false });
  try {
    if (info.size === 0) return 'is empty';
    if (info.size > BODY_PROBE_BYTES) return undefined;
    const buf = Buffer.alloc(info.size);
    await handle.read(buf, 0, info.size, 0);
    const text = buf.toString('utf8').replace(/^\uFEFF/, '');
    const lines = text.split('\n');
    if (lines[0]?.trimEnd() !== '---') return undefined;
    const close = lines.findIndex((l, i) => i > 0 && l.trimEnd() === '---');
    if (close < 0) return 'ends inside its frontmatter';
    if (
      lines
        .slice(close + 1)
        .join('\n')
        .trim() === ''
    )
      return 'has frontmatter but no body';
    return undefined;
  } finally {
    await handle.close();
  }
}
