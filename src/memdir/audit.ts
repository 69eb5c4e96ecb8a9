import { join } from 'node:path';
import { contentProblems } from './audit-content.js';
import {
  auditFiles,
  type FileFindingKind,
  fixFileFindings,
  truncatedBodies,
} from './audit-files.js';
import { countOrphans } from './audit-orphans.js';
import { INDEX_FILE, INDEX_MAX_BYTES, INDEX_MAX_LINES } from './constants.js';
import { type IndexEntry, parseIndexEntries, readIndexRaw, truncateIndex } from './index-file.js';
import { HARD_LINK, scanMemories } from './scan.js';
import type { MemoryHeader } from './types.js';

export type AuditProblemKind =
  | 'orphan'
  | 'dangling_pointer'
  | 'missing_description'
  | 'unknown_type'
  | 'no_frontmatter'
  | 'malformed_frontmatter'
  | 'index_over_lines'
  | 'index_over_bytes'
  | 'revoked_in_index'
  | 'unreadable'
  | 'duplicate_index_line'
  | 'unparseable_index_line'
  | 'uninjectable'
  | 'symlink'
  | 'orphan_count_unreliable'
  | FileFindingKind;

export interface AuditProblem {
  kind: AuditProblemKind;
  /** The memory file (or MEMORY.md) concerned. */
  file: string;
  message: string;
  /** 1-based index line, for pointer problems. */
  line?: number;
  /** True when `engram audit --fix` removes it (temp files, dead locks). */
  fixable?: boolean;
}

export interface AuditReport {
  ok: boolean;
  dir: string;
  memories: number;
  indexEntries: number;
  /** Orphans by per-file lookup, the count the problems list. */
  orphans: number;
  /** The same count by deduplicated link extraction, and whether the two agree. */
  orphanCheck: { perFile: number; byLinks: number; reliable: boolean };
  problems: AuditProblem[];
  /** With `fix`: the problems that were removed (no longer in `problems`). */
  fixed?: AuditProblem[];
}

export interface AuditOptions {
  /** Remove what is safe to remove: leftover temp files, stale lock leftovers, dead holders. */
  fix?: boolean;
}

/**
 * Check the invariants of a memory directory: every active memory has exactly one index line,
 * every index line parses and points at a file, every memory can be recalled (description, known
 * type) and is whole, the index fits its caps, and nothing a crashed writer leaves (temp files,
 * lock leftovers, a lock held by a dead process) goes unnoticed. Reads every header; bodies only
 * of small files.
 */
export async function auditMemoryDir(
  dir: string,
  options: AuditOptions = {},
): Promise<AuditReport> {
  const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
  const nested = await nestedIndexed(dir, scan.memories);
  const report = auditFrom(
    dir,
    scan.memories,
    (await readIndexRaw(dir)) ?? '',
    nested,
    new Set(scan.symlinks ?? []),
  );
  let files = [...(await auditFiles(dir)), ...(await truncatedBodies(scan.memories))];
  const content = await contentProblems(dir, scan.memories, scan.symlinks ?? []);
  let fixed: AuditProblem[] | undefined;
  if (options.fix) {
    fixed = await fixFileFindings(dir, files);
    files = files.filter((f) => !fixed?.includes(f));
  }
  const problems = [...report.problems, ...content, ...files];
  return { ...report, problems, ok: problems.length === 0, ...(fixed ? { fixed } : {}) };
}

/**
 * Files listed by the MEMORY.md of a layer folder they live in (the team layer, `team/`, keeps
 * its own index): such a file is indexed even though the top index does not name it.
 */
async function nestedIndexed(dir: string, memories: MemoryHeader[]): Promise<Set<string>> {
  const folders = new Set(
    memories.filter((m) => m.file.includes('/')).map((m) => m.file.slice(0, m.file.indexOf('/'))),
  );
  const indexed = new Set<string>();
  for (const folder of folders) {
    const text = await readIndexRaw(join(dir, folder)).catch(() => undefined);
    for (const e of parseIndexEntries(text ?? '')) indexed.add(`${folder}/${e.file}`);
  }
  return indexed;
}

/**
 * The audit's decisions from already-read data. `links` are `.md` entries that are symbolic
 * links: never read as memories, but present, so a line pointing at one is not "dangling" (the
 * `symlink` finding says what it is and where it leads). Pure.
 */
export function auditFrom(
  dir: string,
  memories: MemoryHeader[],
  indexText: string,
  indexedElsewhere: ReadonlySet<string> = new Set(),
  links: ReadonlySet<string> = new Set(),
): AuditReport {
  const problems: AuditProblem[] = [];
  const entries = parseIndexEntries(indexText);
  const byFile = new Map(memories.map((m) => [m.file, m]));
  const orphans = countOrphans(memories, indexText);
  const orphaned = new Set(orphans.perFile.filter((f) => !indexedElsewhere.has(f)));
  problems.push(...indexLineProblems(indexText, entries));
  for (const entry of entries) {
    const memory = byFile.get(entry.file);
    if (!memory && links.has(entry.file)) continue;
    if (!memory) {
      problems.push({
        kind: 'dangling_pointer',
        file: entry.file,
        line: entry.line + 1,
        message: `${INDEX_FILE} line ${entry.line + 1} points at ${entry.file}, which does not exist.`,
      });
    } else if (memory.status === 'revoked') {
      problems.push({
        kind: 'revoked_in_index',
        file: entry.file,
        line: entry.line + 1,
        message: `${entry.file} is revoked but still listed on ${INDEX_FILE} line ${entry.line + 1}.`,
      });
    }
  }
  for (const m of memories) {
    if (orphaned.has(m.file)) {
      problems.push({
        kind: 'orphan',
        file: m.file,
        message: `${m.file} has no line in ${INDEX_FILE}.`,
      });
    }
    if (m.unreadable !== undefined) {
      problems.push({
        kind: 'unreadable',
        file: m.file,
        message:
          m.unreadable === HARD_LINK
            ? `${m.file} is a hard link (a second name for a file that may live anywhere on the disk), so engram never reads it; give it a copy of its own (\`cp ${m.file} ${m.file}.new && mv ${m.file}.new ${m.file}\`) to recall it.`
            : `${m.file} cannot be read (${m.unreadable}); fix its permissions so it can be recalled.`,
      });
    } else if (!m.hasFrontmatter) {
      problems.push({
        kind: 'no_frontmatter',
        file: m.file,
        message: `${m.file} has no frontmatter closing within its first 30 lines, so it cannot be recalled.`,
      });
    } else if (m.frontmatterError !== undefined) {
      problems.push({
        kind: 'malformed_frontmatter',
        file: m.file,
        message: `${m.file} has frontmatter that is not valid YAML (${m.frontmatterError.split('\n')[0]}); quote values that contain ": ".`,
      });
    } else {
      if (!m.description) {
        problems.push({
          kind: 'missing_description',
          file: m.file,
          message: `${m.file} has no description; recall decides from that line alone, so it is never recalled.`,
        });
      }
      if (m.type === 'unknown') {
        problems.push({
          kind: 'unknown_type',
          file: m.file,
          message: `${m.file} has a missing or unknown type (${JSON.stringify(m.frontmatter.type ?? null)}); use user, feedback, project or reference.`,
        });
      }
    }
  }
  if (!orphans.reliable) {
    problems.push({
      kind: 'orphan_count_unreliable',
      file: INDEX_FILE,
      message: `The orphan count is unreliable: looking each file up in ${INDEX_FILE} finds ${orphans.perFile.length} orphans, extracting its link targets finds ${orphans.byLinks.length}. Some line is written in a form one reader misses; rewrite it as \`- [Title](file.md) — hook\`.`,
    });
  }
  const capped = truncateIndex(indexText);
  if (capped.limitsHit.includes('lines')) {
    problems.push({
      kind: 'index_over_lines',
      file: INDEX_FILE,
      message: `${INDEX_FILE} has ${capped.totalLines} lines; only ${INDEX_MAX_LINES} are loaded.`,
    });
  }
  if (capped.totalBytes > INDEX_MAX_BYTES) {
    problems.push({
      kind: 'index_over_bytes',
      file: INDEX_FILE,
      message: `${INDEX_FILE} is ${capped.totalBytes} bytes; only ${INDEX_MAX_BYTES} are loaded.`,
    });
  }
  return {
    ok: problems.length === 0,
    dir,
    memories: memories.length,
    indexEntries: entries.length,
    orphans: orphaned.size,
    orphanCheck: {
      perFile: orphans.perFile.length,
      byLinks: orphans.byLinks.length,
      reliable: orphans.reliable,
    },
    problems,
  };
}

/** Pointer-looking lines that do not parse, and a file listed on more than one line. Pure. */
function indexLineProblems(indexText: string, entries: readonly IndexEntry[]): AuditProblem[] {
  const problems: AuditProblem[] = [];
  const parsed = new Set(entries.map((e) => e.line));
  indexText.split('\n').forEach((raw, i) => {
    if (parsed.has(i)) return;
    const target = /\]\(([^)]*)\)?/.exec(raw)?.[1];
    // Only pointer-looking lines; links elsewhere (https:, mailto:) are not pointers.
    if (target === undefined || /^\s*<?[a-z][a-z0-9+.-]*:/i.test(target)) return;
    problems.push({
      kind: 'unparseable_index_line',
      file: INDEX_FILE,
      line: i + 1,
      message: `${INDEX_FILE} line ${i + 1} looks like a pointer but cannot be read (${JSON.stringify(raw.slice(0, 80))}); write it as \`- [Title](file.md) — hook\` with %20 for spaces, or delete it (\`engram index --rebuild\` keeps lines it cannot read).`,
    });
  });
  const firstLine = new Map<string, number>();
  for (const entry of entries) {
    const first = firstLine.get(entry.file);
    if (first === undefined) {
      firstLine.set(entry.file, entry.line);
      continue;
    }
    problems.push({
      kind: 'duplicate_index_line',
      file: entry.file,
      line: entry.line + 1,
      message: `${entry.file} is listed again on ${INDEX_FILE} line ${entry.line + 1} (first on line ${first + 1}); \`engram index --rebuild\` keeps the first line only.`,
    });
  }
  return problems;
}
