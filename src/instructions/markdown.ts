/**
 * Markdown handling for instruction files, done with a real lexer (marked) so that code is never
 * mistaken for prose: an `@path` or `<!-- note -->` inside a fenced block or a code span is an
 * example the author is showing, not a directive. Pure functions.
 */
import { Lexer, type Token } from 'marked';

const COMMENT = /<!--[\s\S]*?-->/g;

/**
 * Remove HTML block comments (authors' notes) from markdown. Comments inside code blocks, code
 * spans and inline HTML are kept. Text that follows `-->` on the same line survives. An unclosed
 * `<!--` is kept verbatim: dropping the rest of a file would lose instructions silently.
 */
export function stripHtmlComments(markdown: string): { content: string; stripped: boolean } {
  if (!markdown.includes('<!--')) return { content: markdown, stripped: false };
  // CommonMark mode: only block-level HTML is a comment block; gfm adds nothing relevant here.
  const tokens = new Lexer({ gfm: false }).lex(markdown);
  // The token stream must reproduce the source exactly, or rebuilding it would alter the file.
  if (tokens.map((t) => t.raw).join('') !== markdown) return { content: markdown, stripped: false };
  let stripped = false;
  const parts = tokens.map((token) => {
    if (token.type !== 'html' || !token.raw.trimStart().startsWith('<!--')) return token.raw;
    if (!token.raw.includes('-->')) return token.raw;
    stripped = true;
    const rest = token.raw.replace(COMMENT, '');
    // A comment alone on its lines leaves nothing, not a stray blank line.
    return rest.trim() === '' ? '' : rest;
  });
  return { content: parts.join(''), stripped };
}

// `@` at the start of a text run or after whitespace, then a path where `\ ` escapes a space.
// Full-width punctuation ends a path: CJK prose puts no space between a path and `，` or `。`.
const INCLUDE =
  /(?:^|\s)@((?:[^\s\\\u3001\u3002\u300b\u300d\u300f\u3011\uff01\uff09\uff0c\uff1a\uff1b\uff1f]|\\ )+)/gu;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/;

/**
 * The `@path` references in a markdown text, in order of appearance, without duplicates.
 * `#fragment` is stripped and `\ ` unescaped; trailing sentence punctuation is not part of a path.
 */
export function extractIncludeReferences(markdown: string): string[] {
  const found = new Set<string>();
  const visit = (tokens: readonly Token[]): void => {
    // Inline text and backslash escapes form one run, so `@a\_b.md` stays one path (`a_b.md`).
    let run = '';
    for (const token of tokens) {
      const leaf = !('tokens' in token && token.tokens);
      if (leaf && token.type === 'text') run += token.raw;
      else if (leaf && token.type === 'escape') run += token.text;
      else {
        collectFromText(run, found);
        run = '';
        visitToken(token, visit);
      }
    }
    collectFromText(run, found);
  };
  // CommonMark mode: GFM strikethrough would pair the `~` of two `@~/…` lines into one deleted
  // run and split both paths; GFM autolinks would swallow `@x.md` after an e-mail-like word.
  visit(new Lexer({ gfm: false }).lex(markdown));
  return [...found];
}

function visitToken(token: Token, visit: (tokens: readonly Token[]) => void): void {
  // Code and raw HTML are examples or markup, never directives.
  if (token.type === 'code' || token.type === 'codespan' || token.type === 'html') return;
  const t = token as Token & {
    tokens?: Token[];
    items?: Token[];
    header?: Array<{ tokens: Token[] }>;
    rows?: Array<Array<{ tokens: Token[] }>>;
  };
  if (t.tokens) visit(t.tokens);
  if (t.items) visit(t.items);
  for (const cell of t.header ?? []) visit(cell.tokens);
  for (const row of t.rows ?? []) for (const cell of row) visit(cell.tokens);
}

function collectFromText(text: string, found: Set<string>): void {
  for (const match of text.matchAll(INCLUDE)) {
    let reference = match[1] ?? '';
    const hash = reference.indexOf('#');
    if (hash !== -1) reference = reference.slice(0, hash);
    reference = reference.replace(TRAILING_PUNCTUATION, '').replaceAll('\\ ', ' ');
    if (reference !== '' && reference !== '~' && reference !== '.') found.add(reference);
  }
}
