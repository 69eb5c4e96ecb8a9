/**
 * Orphans and dangling index lines counted twice, by methods that share no code: the audit's
 * line parser against the scan, and a markdown parser's links against a plain directory listing
 * with its own reading of `status:`. A count that silently misses a link form (angle brackets,
 * reference links, a title attribute) shows up as a disagreement instead of a wrong number
 * (seed 000 appendix B: cross-checked orphan counts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Token, Tokens } from 'marked';
import { auditFrom } from './audit.js';
import { INDEX_FILE } from './constants.js';
import type { MemoryHeader } from './types.js';

export interface IndexCount {
  /** Active memory files no index link points at. */
  orphans: string[];
  /** Index link targets that name no file in the directory. */
  dangling: string[];
}

export interface IndexCrossCheck {
  /** The audit's method: `parseIndexEntries` against the scanned headers. */
  byIndexParser: IndexCount;
  /** The second method: markdown links (marked's lexer) against a directory listing. */
  byLinkScan: IndexCount;
  /** Both methods name the same orphans and the same dangling targets. */
  agree: boolean;
}

/** The first method, from data the audit already read. Pure. */
export function countByIndexParser(memories: MemoryHeader[], indexText: string): IndexCount {
  const problems = auditFrom('', memories, indexText).problems;
  const pick = (kind: string) =>
    [...new Set(problems.filter((p) => p.kind === kind).map((p) => p.file))].sort();
  return { orphans: pick('orphan'), dangling: pick('dangling_pointer') };
}

let markedModule: Promise<typeof import('marked')> | undefined;

/**
 * Every local link target in a markdown text, decoded, without `./` or a fragment. marked loads
 * on first use: this module sits behind the memdir barrel, which a prompt's hook process imports,
 * and the hook must not pay for a markdown parser it never uses.
 */
export async function markdownLinkTargets(text: string): Promise<string[]> {
  markedModule ??= import('marked');
  const { marked } = await markedModule;
  const targets: string[] = [];
  const visit = (tokens: readonly Token[] | undefined) => {
    for (const t of tokens ?? []) {
      if (t.type === 'link') targets.push((t as Tokens.Link).href);
      const nested = t as { tokens?: Token[]; items?: Token[] };
      visit(nested.tokens);
      visit(nested.items);
    }
  };
  visit(marked.lexer(text));
  return targets
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('#'))
    .map((href) => {
      let t = href.replace(/#.*$/, '').replace(/^\.\//, '');
      try {
        t = decodeURIComponent(t);
      } catch {
        // keep it as written
      }
      return t;
    })
    .filter((t) => t !== '');
}

/** The second method: its own listing of `*.md` files and its own reading of `status: revoked`. */
export async function countByLinkScan(dir: string, indexText: string): Promise<IndexCount> {
  const files = await listMarkdown(dir, '');
  const present = new Set(files.map((f) => f.file));
  const linked = new Set(await markdownLinkTargets(indexText));
  return {
    orphans: files
      .filter((f) => !f.revoked && !linked.has(f.file))
      .map((f) => f.file)
      .sort(),
    dangling: [...linked].filter((t) => !present.has(t)).sort(),
  };
}

async function listMarkdown(
  dir: string,
  rel: string,
): Promise<Array<{ file: string; revoked: boolean }>> {
  const entries = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => []);
  const out: Array<{ file: string; revoked: boolean }> = [];
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const file = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listMarkdown(dir, file)));
    else if (e.isFile() && e.name.endsWith('.md') && file !== INDEX_FILE) {
      out.push({ file, revoked: await looksRevoked(join(dir, file)) });
    }
  }
  return out;
}

async function looksRevoked(path: string): Promise<boolean> {
  const head = (await readFile(path, 'utf8').catch(() => '')).split('\n').slice(0, 30);
  if (head[0]?.trim() !== '---') return false;
  const end = head.findIndex((l, i) => i > 0 && l.trim() === '---');
  return head.slice(1, Math.max(end, 0)).some((l) => /^status:\s*['"]?revoked['"]?\s*$/.test(l));
}

/** Both counts, and whether they agree. */
export async function crossCheckIndex(
  dir: string,
  memories: MemoryHeader[],
  indexText: string,
): Promise<IndexCrossCheck> {
  const byIndexParser = countByIndexParser(memories, indexText);
  const byLinkScan = await countByLinkScan(dir, indexText);
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  return {
    byIndexParser,
    byLinkScan,
    agree:
      same(byIndexParser.orphans, byLinkScan.orphans) &&
      same(byIndexParser.dangling, byLinkScan.dangling),
  };
}
