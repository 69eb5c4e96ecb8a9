import type { EngramEnvironment } from '../config/index.js';

/**
 * Who wrote a file, lowest priority first: an administrator (`managed`), the user for every
 * project (`user`), the project's maintainers (`project`, checked in), the user for this project
 * only (`local`, not checked in).
 */
export type InstructionType = 'managed' | 'user' | 'project' | 'local';

export const INSTRUCTION_TYPES: readonly InstructionType[] = [
  'managed',
  'user',
  'project',
  'local',
];

export interface LoadedInstructionFile {
  /** Absolute path as discovered or as the include named it (symlinks not resolved). */
  path: string;
  /** The path with symlinks resolved; the identity used to load each file once. */
  realPath: string;
  type: InstructionType;
  /** The text that enters the prompt: frontmatter and HTML block comments removed. */
  content: string;
  /** The file that included this one with `@path`, if any. */
  parent?: string;
  /** 0 for a discovered file, n for an include n levels down. */
  depth: number;
  /** `paths:` globs of a conditional rule (inherited by the rule's includes). */
  globs?: string[];
  /** The folder the globs are relative to: the one holding `.claude/` (the cwd for user rules). */
  baseDir?: string;
  /** True for rules that load only when a matching file is touched (see `rulesFor`). */
  conditional: boolean;
  /** True when `content` is not the file's text verbatim (something was stripped). */
  contentDiffersFromDisk: boolean;
  /** Bytes on disk. */
  size: number;
  /** Characters of `content`. */
  chars: number;
  /** More than LARGE_FILE_CHARS characters: loaded, but the host should tell the user. */
  tooLarge: boolean;
}

export type InstructionReportKind =
  | 'too-large'
  | 'skipped-too-big'
  | 'unreadable'
  | 'not-a-file'
  | 'bad-frontmatter'
  | 'refused'
  | 'include-not-text'
  | 'include-missing'
  | 'include-too-deep'
  | 'excluded'
  | 'worktree-skipped'
  | 'settings';

/** Something the host should know about loading; loading itself never throws. */
export interface InstructionReport {
  kind: InstructionReportKind;
  severity: 'warning' | 'info';
  path: string;
  parent?: string;
  message: string;
}

export type InstructionsLoadReason = 'session_start' | 'compact' | 'settings_change' | 'manual';

export interface InstructionsResult {
  /** The working directory the files were discovered for. */
  cwd: string;
  /** Files that load unconditionally, in load order (the last weighs most). */
  files: LoadedInstructionFile[];
  /** Rules with `paths:` globs (and their includes); pick the ones for a file with `rulesFor`. */
  conditionalRules: LoadedInstructionFile[];
  /** The assembled prompt section for `files`; '' when nothing loaded. */
  prompt: string;
  reports: InstructionReport[];
  /** Why this load happened (the reason passed to the last invalidation, else session_start). */
  loadReason: InstructionsLoadReason;
}

export interface LoadInstructionsOptions {
  environment: EngramEnvironment;
  /** Reuse the per-process cached result for this environment (default true). */
  cache?: boolean;
}
