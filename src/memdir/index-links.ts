/**
 * Reading MEMORY.md the way people write it. A pointer is any markdown link to a `.md` file inside
 * the memory directory, wherever it sits on a line: a bullet or a numbered item, inside emphasis,
 * with a title (`[t](f.md "title")`), in angle brackets (`[t](<my file.md>)`), in a table cell,
 * after a label (`- three: [link](mem3.md)`), reference-style (`[t][r1]` with `[r1]: mem3.md`, the
 * definition being the line that points), under any heading. Targets are normalized inside the
 * directory (`./a.md`, `sub/../a.md` and `a%20b.md` name files as they are on disk); links out of it,
 * external URLs and links inside code are not pointers. Pure.
 */

import { createRequire } from 'node:module';
import { posix } from 'node:path';
import type { Token } from 'marked';

let markedModule: typeof import('marked') | undefined;
/**
 * marked, loaded on first use: this module sits under loadIndex, which every hook process imports,
 * and only the audit's cross-check needs a markdown parser. Synchronous, through require (Node
 * 20.19 and later load ES modules that way), so the audit stays a pure, synchronous function.
 */
function loadMarked(): typeof import('marked') {
  markedModule ??= createRequire(import.meta.url)('marked') as typeof import('marked');
  return markedModule;
}

import { INDEX_FILE } from './constants.js';

export interface IndexEntry {
  /** The link text, without emphasis marks. */
  title: string;
  /** The memory file it points at, relative to the directory, normalized. */
  file: string;
  /** What follows the link on its line, after a dash or colon. */
  hook: string;
  /** 0-based line number in MEMORY.md. */
  line: number;
  /** Other pointers on the same line (a table row may hold several). */
  siblings: number;
  /** Where the link markup sits on its line: [start, end). */
  span: [number, number];
}

const LINK_RE =
  /(!?)\[((?:[^[\]\\\n]|\\.|\[[^\]\n]*\])*)\]\(\s*(<[^>\n]*>|(?:[^\s()\\]|\\.|\([^\s()]*\))+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*\)/g;
const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;
// A link reference definition (`[r1]: a.md "title"`): the line a reference-style link's target
// sits on, so it is the line that points at the file.
const REF_DEF_RE =
  /^ {0,3}\[((?:[^[\]\\\n]|\\.)+)\]:\s*(<[^>\n]*>|\S+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?\s*$/;
// Uses of a reference: `[text][label]`, `[label][]`, or the shortcut `[label]` (not followed by
// `(`, `[` or `:`, which make it an inline link, a full reference or a definition).
const REF_USE_RE = /\[((?:[^[\]\\\n]|\\.)*)\](?:\[((?:[^[\]\\\n]|\\.)*)\]|(?![([:]))/g;

/** CommonMark's label matching: case-insensitive, inner whitespace collapsed. */
function labelKey(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * The memory file a link target names, or undefined when it is not a pointer: external (a scheme
 * such as `https:` or `mailto:`), absolute, leaving the directory, not a `.md` file, or the index.
 */
export function normalizeIndexTarget(raw: string): string | undefined {
  let target = raw.trim();
  if (target.startsWith('<') && target.endsWith('>')) target = target.slice(1, -1).trim();
  target = target.replace(/\\(.)/g, '$1').replace(/[?#].*$/, '');
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  try {
    target = decodeURIComponent(target);
  } catch {
    // keep the raw target
  }
  if (target === '' || target.startsWith('/') || target.includes('\\') || target.includes('\0')) {
    return undefined;
  }
  const normal = posix.normalize(target);
  if (normal === '..' || normal.startsWith('../') || !normal.toLowerCase().endsWith('.md')) {
    return undefined;
  }
  return normal === INDEX_FILE ? undefined : normal;
}

/** Inline code spans blanked out (same length), so a link shown as code is not a pointer. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
}

function cleanTitle(text: string): string {
  return text
    .replace(/[*_~`]/g, '')
    .replace(/\\(.)/g, '$1')
    .trim();
}

/** Lines outside fenced code, code spans blanked out, with their numbers. */
function proseLines(text: string): Array<{ line: number; content: string; prose: string }> {
  const out: Array<{ line: number; content: string; prose: string }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, line) => {
    const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const f = FENCE_RE.exec(content);
    if (f) {
      const mark = f[1]!;
      if (fence === undefined) fence = mark[0]!.repeat(mark.length);
      else if (mark[0] === fence[0] && mark.length >= fence.length) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line, content, prose: withoutCodeSpans(content) });
  });
  return out;
}

/** Labels some line refers to (a definition no line uses is not a link, for marked neither). */
function usedLabels(lines: ReadonlyArray<{ prose: string }>): Set<string> {
  const used = new Set<string>();
  for (const { prose } of lines) {
    if (REF_DEF_RE.test(prose)) continue;
    for (const m of prose.matchAll(REF_USE_RE)) {
      const label = m[2] !== undefined && m[2].trim() !== '' ? m[2] : m[1];
      if (label !== undefined && label.trim() !== '') used.add(labelKey(label));
    }
  }
  return used;
}

/** Every pointer in the index, in order, with its line. Pure. */
export function parseIndexEntries(text: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  const lines = proseLines(text);
  let used: Set<string> | undefined;
  for (const { line, content, prose } of lines) {
    const def = REF_DEF_RE.exec(prose);
    if (def) {
      used ??= usedLabels(lines);
      const file = used.has(labelKey(def[1] ?? ''))
        ? normalizeIndexTarget(def[2] ?? '')
        : undefined;
      if (file !== undefined) {
        const title = cleanTitle(def[1] ?? '');
        entries.push({ title, file, hook: '', line, siblings: 0, span: [0, content.length] });
      }
      continue;
    }
    const onLine: IndexEntry[] = [];
    for (const m of prose.matchAll(LINK_RE)) {
      if (m[1] === '!') continue; // an image, not a link
      const file = normalizeIndexTarget(m[3] ?? '');
      if (file === undefined) continue;
      const start = m.index ?? 0;
      const end = start + m[0].length;
      const after = content
        .slice(end)
        .replace(/^[*_~]+/, '')
        .replace(/\s*\|.*$/, '');
      const hook = /^\s*(?:—|–|-|:)\s*(.*)$/.exec(after)?.[1] ?? '';
      onLine.push({
        title: cleanTitle(m[2] ?? ''),
        file,
        hook: hook.trim(),
        line,
        siblings: 0,
        span: [start, end],
      });
    }
    for (const e of onLine) entries.push({ ...e, siblings: onLine.length - 1 });
  }
  return entries;
}

/**
 * The set of files the index points at, found a second, independent way: the markdown parser's
 * own link tokens (lists, tables, emphasis, headings), not the line scanner above. The audit
 * compares the two; when they disagree, its orphan count cannot be trusted.
 */
export function indexTargetsByMarkdown(text: string): Set<string> {
  const found = new Set<string>();
  const visit = (tokens: readonly Token[] | undefined) => {
    for (const token of tokens ?? []) {
      if (token.type === 'link') {
        const file = normalizeIndexTarget((token as { href: string }).href);
        if (file !== undefined) found.add(file);
      }
      if (token.type === 'code' || token.type === 'codespan') continue;
      const t = token as Token & {
        tokens?: Token[];
        items?: Array<{ tokens?: Token[] }>;
        header?: Array<{ tokens?: Token[] }>;
        rows?: Array<Array<{ tokens?: Token[] }>>;
      };
      visit(t.tokens);
      for (const item of t.items ?? []) visit(item.tokens);
      for (const cell of t.header ?? []) visit(cell.tokens);
      for (const row of t.rows ?? []) for (const cell of row) visit(cell.tokens);
    }
  };
  visit(loadMarked().marked.lexer(text, { gfm: true }));
  return found;
}
