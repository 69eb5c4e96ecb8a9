import { join } from 'node:path';
import { FRONTMATTER_MAX_LINES } from './constants.js';
import { parseFrontmatter, parseSimpleYaml, stringField } from './frontmatter.js';
import { type MemoryHeader, parseMemoryType } from './types.js';

/**
 * A memory's header from its text. `headerFromText` is the reference (YAML parser, first 30
 * lines); `headerFromHead` is the hot path's shortcut that must agree with it.
 */

// The hot path reads frontmatter without the YAML parser when it is made only of plain
// `key: value` lines (as nearly all memories are): the parser alone cost more than the filesystem
// floor of a scan. Anything else goes to `headerFromText`, the reference; a property test over
// thousands of generated frontmatters checks the two agree.

/**
 * The header from a file's first whole lines, or undefined when those lines cannot decide it
 * (frontmatter still open at the end of an incomplete head). Equal to `headerFromText`. `path` is
 * `join(dir, file)`, passed by a caller that has it already (a scan's `pathPrefix(dir) + file`).
 * Pure.
 */
export function headerFromHead(
  dir: string,
  file: string,
  mtimeMs: number,
  head: string,
  complete: boolean,
  path?: string,
): MemoryHeader | undefined {
  const source = head.startsWith('\uFEFF') ? head.slice(1) : head;
  // The lines up to the closing `---` and no further (at most one past the frontmatter's limit,
  // which is all the checks below look at): splitting the whole head made a string of every line
  // of the body too, thousands of them in a cold scan, for nothing.
  const lines: string[] = [];
  let close = -1;
  for (let from = 0; lines.length <= FRONTMATTER_MAX_LINES; ) {
    const end = source.indexOf('\n', from);
    const line = end < 0 ? source.slice(from) : source.slice(from, end);
    const i = lines.push(line) - 1;
    // No opening line: no frontmatter, however long the file (the reference decides the same).
    if (i === 0 && line.trimEnd() !== '---') return headerFromText(dir, file, mtimeMs, head);
    if (i > 0 && i < FRONTMATTER_MAX_LINES && line.trimEnd() === '---') {
      close = i;
      break;
    }
    if (end < 0) break;
    from = end + 1;
  }
  if (close < 0) {
    // Not closed within what we have: decided only if we have the whole file or all 30 lines.
    const decided = complete || lines.length > FRONTMATTER_MAX_LINES;
    return decided ? headerFromText(dir, file, mtimeMs, head) : undefined;
  }
  const data = lines[0] === '---' ? parseSimpleYaml(lines, close) : undefined;
  if (!data) return headerFromText(dir, file, mtimeMs, head);
  return headerFromData(path ?? join(dir, file), file, mtimeMs, data);
}

/** The header for parsed frontmatter; both the shortcut and the reference end here. Pure. */
function headerFromData(
  path: string,
  file: string,
  mtimeMs: number,
  data: Record<string, unknown>,
  hasFrontmatter = true,
): MemoryHeader {
  const header: MemoryHeader = {
    file,
    path,
    mtimeMs,
    type: parseMemoryType(data.type),
    status: data.status === 'revoked' ? 'revoked' : 'active',
    hasFrontmatter,
    frontmatter: data,
  };
  const name = stringField(data, 'name');
  const description = stringField(data, 'description');
  if (name !== undefined) header.name = name;
  if (description !== undefined) header.description = description;
  return header;
}

export { parseSimpleYaml };

/** Build a header from a file's text (its head is enough). Pure. */
export function headerFromText(
  dir: string,
  file: string,
  mtimeMs: number,
  text: string,
): MemoryHeader {
  const fm = parseFrontmatter(text, FRONTMATTER_MAX_LINES);
  const header = headerFromData(join(dir, file), file, mtimeMs, fm.found ? fm.data : {}, fm.found);
  if (fm.found && fm.error !== undefined) header.frontmatterError = fm.error;
  return header;
}
