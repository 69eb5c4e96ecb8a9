import braces from 'braces';
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
 * `paths:` as a list or a comma-separated string; braces expand (`src/{a,b}.ts` is two globs)
 * because the `ignore` matcher speaks gitignore, which has no braces. Patterns that match
 * everything make the rule unconditional, as if it had no `paths:` at all.
 */
export function parseGlobs(value: unknown): string[] | undefined {
  const list =
    typeof value === 'string'
      ? [value]
      : Array.isArray(value)
        ? value.filter((v): v is string => typeof v === 'string')
        : [];
  const globs = list
    .flatMap(splitOutsideBraces)
    .map((g) => g.trim())
    .filter((g) => g !== '')
    .flatMap(expandBraces);
  if (globs.length === 0 || globs.every((g) => g === '**' || g === '**/*')) return undefined;
  return [...new Set(globs)];
}

/** `a/{b,c}, d` → `a/{b,c}`, ` d`: commas separate patterns only outside braces. */
function splitOutsideBraces(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

// A rule with a pathological pattern must not turn into millions of globs: at most this many are
// kept, and a pattern whose expansion could pass EXPANSION_GUARD is not expanded at all.
const MAX_EXPANSIONS = 256;
const EXPANSION_GUARD = 4_096;

/** `*.{ts,tsx}` → `*.ts`, `*.tsx`, nested braces and `{1..3}` ranges too (the `braces` package). */
export function expandBraces(pattern: string): string[] {
  if (expansionBound(pattern) > EXPANSION_GUARD) return [pattern];
  return braces.expand(pattern).slice(0, MAX_EXPANSIONS);
}

/**
 * An upper bound on how many patterns `pattern` expands to: the product, over every `{`, of its
 * alternatives (commas at its own depth, plus one) or its range's length. Cheap, and never below
 * the real count, so it can refuse a pattern before anything is expanded.
 */
function expansionBound(pattern: string): number {
  let bound = 1;
  for (let start = pattern.indexOf('{'); start !== -1; start = pattern.indexOf('{', start + 1)) {
    let depth = 0;
    let alternatives = 1;
    let end = -1;
    for (let i = start; i < pattern.length && end < 0; i++) {
      const c = pattern[i];
      if (c === '{') depth++;
      else if (c === ',' && depth === 1) alternatives++;
      else if (c === '}' && --depth === 0) end = i;
    }
    const range = /^\{(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.-?\d+)?\}$/.exec(
      pattern.slice(start, end + 1),
    );
    if (range) alternatives = Math.abs(rangeValue(range[2]!) - rangeValue(range[1]!)) + 1;
    bound *= alternatives;
    if (bound > EXPANSION_GUARD) return bound;
  }
  return bound;
}

function rangeValue(end: string): number {
  return /^-?\d+$/.test(end) ? Number(end) : end.charCodeAt(0);
}
