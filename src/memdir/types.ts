import type { Uninjectable } from './injectable.js';

export const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
/** A missing or unrecognised `type:` degrades to 'unknown'; the file still loads. */
export type MemoryTypeOrUnknown = MemoryType | 'unknown';

export type MemoryStatus = 'active' | 'revoked';

/** What a scan learns about one memory file from its first lines, without reading the body. */
export interface MemoryHeader {
  /** Path relative to the memory directory, with `/` separators (e.g. `no-try-catch.md`). */
  file: string;
  /** Absolute path. */
  path: string;
  mtimeMs: number;
  name?: string;
  description?: string;
  type: MemoryTypeOrUnknown;
  status: MemoryStatus;
  /** False when the file has no frontmatter or it does not close within the first 30 lines. */
  hasFrontmatter: boolean;
  /** Set when the frontmatter block closed but is not valid YAML (the file cannot be recalled). */
  frontmatterError?: string;
  /** Set when the file exists but cannot be read (e.g. `EACCES`): listed and audited, never recalled. */
  unreadable?: string;
  /** Set when its bytes cannot be injected (NUL bytes, not UTF-8): audited, never recalled. */
  uninjectable?: Uninjectable;
  /** The memory chain layer it came from ('project', 'user', …); absent for a single directory. */
  layer?: string;
  /** Parsed frontmatter (empty when absent or unparseable). */
  frontmatter: Record<string, unknown>;
}

export interface ScanResult {
  /** Newest first by mtime, at most `cap`. */
  memories: MemoryHeader[];
  /** How many memory files exist in total. */
  total: number;
  /** How many were left out by the cap (oldest first to go). */
  dropped: number;
  cap: number;
  /** `.md` entries that are symbolic links: never followed (never out of the directory), reported. */
  symlinks?: string[];
}

export function parseMemoryType(value: unknown): MemoryTypeOrUnknown {
  return typeof value === 'string' && (MEMORY_TYPES as readonly string[]).includes(value)
    ? (value as MemoryType)
    : 'unknown';
}
