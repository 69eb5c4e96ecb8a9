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

// A rule with a pathological pattern must not turn into millions of globs.
const MAX_EXPANSIONS = 256;

/** `*.{ts,tsx}` → `*.ts`, `*.tsx`, nested braces too; braces without a comma stay literal. */
export function expandBraces(pattern: string): string[] {
  const out: string[] = [];
  const walk = (p: string): void => {
    if (out.length >= MAX_EXPANSIONS) return;
    const group = firstBraceGroup(p);
    if (!group) {
      out.push(p);
      return;
    }
    for (const alt of group.alternatives)
      walk(p.slice(0, group.start) + alt + p.slice(group.end + 1));
  };
  walk(pattern);
  return out;
}

/** The first `{…,…}` group with its top-level alternatives; undefined when there is none. */
function firstBraceGroup(
  p: string,
): { start: number; end: number; alternatives: string[] } | undefined {
  for (let start = p.indexOf('{'); start !== -1; start = p.indexOf('{', start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < p.length; i++) {
      const c = p[i];
      if (c === '{') depth++;
      else if (c === ',' && depth === 1) commas.push(i);
      else if (c === '}' && --depth === 0) {
        if (commas.length === 0) break; // `{x}` is literal; look for a later group
        const cuts = [start, ...commas, i];
        const alternatives = cuts.slice(1).map((cut, k) => p.slice((cuts[k] ?? start) + 1, cut));
        return { start, end: i, alternatives };
      }
    }
  }
  return undefined;
}
