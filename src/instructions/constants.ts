/**
 * Limits for instruction files. The numbers follow the reference agents so
 * that a repository behaves the same under engram as under the agents people already use.
 */

/** `@path` includes nest at most this many levels below the file that was discovered. */
export const MAX_INCLUDE_DEPTH = 5;
/** Above this many characters a file still loads, but the host is told (≈10,000 tokens). */
export const LARGE_FILE_CHARS = 40_000;
/** A file bigger than this on disk is not read at all: no instruction file is legitimately 4 MiB. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Guards the recursive `.claude/rules/` walk against pathological trees. */
export const MAX_RULES_DIR_DEPTH = 16;

/** The per-directory file names read by default, in load order within one directory. */
export const DEFAULT_INSTRUCTION_FILES: readonly string[] = [
  'AGENTS.md',
  'CLAUDE.md',
  '.claude/CLAUDE.md',
  '.claude/rules',
  'CLAUDE.local.md',
  'AGENTS.override.md',
];

/** The entry that stands for the recursive rules folder rather than one file. */
export const RULES_DIR_ENTRY = '.claude/rules';

/** Settings keys (user or managed settings only; see docs/instructions.md). */
export const INSTRUCTION_FILES_KEY = 'instructionFiles';
export const INSTRUCTION_EXCLUDES_KEY = 'instructionExcludes';
/** Claude Code's key for the same list; read as an alias. */
export const CLAUDE_MD_EXCLUDES_KEY = 'claudeMdExcludes';
export const ALLOW_EXTERNAL_INCLUDES_KEY = 'allowExternalIncludes';

/** Files treated as markdown: frontmatter, HTML comments and `@` includes are processed. */
export const MARKDOWN_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.mdc']);

/**
 * Includes are limited to text files, decided by extension, so a stray `@logo.png` or a path to a
 * binary can never pour bytes into the prompt.
 */
export const TEXT_FILE_EXTENSIONS = new Set([
  // prose and markup
  ...['.md', '.markdown', '.mdx', '.mdc', '.txt', '.text', '.rst', '.adoc', '.org', '.tex'],
  ...['.html', '.htm', '.xml', '.svg', '.css', '.scss', '.sass', '.less'],
  // data and configuration
  ...['.json', '.jsonc', '.json5', '.yaml', '.yml', '.toml', '.ini', '.cfg', '.conf', '.csv'],
  ...['.tsv', '.properties', '.env.example', '.editorconfig', '.graphql', '.gql', '.proto'],
  ...['.prisma', '.sql', '.tf', '.hcl', '.nix', '.cmake', '.gradle', '.mk', '.lock'],
  // code
  ...['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx', '.vue', '.svelte', '.astro'],
  ...['.py', '.pyi', '.rb', '.go', '.rs', '.java', '.kt', '.kts', '.scala', '.swift', '.m'],
  ...['.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh', '.cs', '.fs', '.php', '.pl', '.lua'],
  ...['.r', '.jl', '.dart', '.ex', '.exs', '.erl', '.hs', '.ml', '.clj', '.elm', '.zig', '.v'],
  ...['.sh', '.bash', '.zsh', '.fish', '.ps1', '.bat', '.cmd', '.dockerfile', '.diff', '.patch'],
]);

/** Well-known text files that carry no extension (e.g. `See @README`). */
export const TEXT_FILE_NAMES = new Set([
  'README',
  'LICENSE',
  'CONTRIBUTING',
  'CHANGELOG',
  'NOTICE',
  'AUTHORS',
  'CODEOWNERS',
  'Makefile',
  'Dockerfile',
  'Justfile',
  'Procfile',
  'Gemfile',
  'Rakefile',
]);
