/**
 * Turn a file's text into what enters the prompt. Pure: text in, content and metadata out.
 */
import { parseFrontmatter } from '../memdir/frontmatter.js';
import { stripHtmlComments } from './markdown.js';

export interface ProcessedText {
  content: string;
  /** `paths:` globs (rules only); undefined when the rule applies everywhere. */
  globs?: string[];
  differsFromDisk: boolean;
  /** The frontmatter's YAML did not parse: a rule's `paths:` could not be read. */
  frontmatterError?: string;
}

// Frontmatter may be long in rules with many globs; the memory scanner's 30-line cap is too tight.
const FRONTMATTER_LINES = 200;

export function processInstructionText(
  raw: string,
  options: { markdown: boolean; rule: boolean },
): ProcessedText {
  if (!options.markdown) return { content: raw, differsFromDisk: false };
  const text = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const front = parseFrontmatter(text, FRONTMATTER_LINES);
  const body = front.found ? front.body : text;
  const globs = options.rule && front.found ? parseGlobs(front.data.paths) : undefined;
  const { content } = stripHtmlComments(body);
  return {
    content,
    ...(globs ? { globs } : {}),
    differsFromDisk: content !== raw,
    ...(front.error ? { frontmatterError: front.error } : {}),
  };
}

/**
 * `paths:` as a list or a comma-separated string. Patterns that match everything make the rule
 * unconditional, as if it had no `paths:` at all.
 */
export function parseGlobs(value: unknown): string[] | undefined {
  const list =
    typeof value === 'string'
      ? value.split(',')
      : Array.isArray(value)
        ? value.filter((v): v is string => typeof v === 'string')
        : [];
  const globs = list.map((g) => g.trim()).filter((g) => g !== '');
  if (globs.length === 0 || globs.every((g) => g === '**' || g === '**/*')) return undefined;
  return globs;
}
