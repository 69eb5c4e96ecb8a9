/**
 * Bring another memory directory in the same format (Claude Code's auto memory) into engram's:
 * each topic file copied as it is, each with its index line (the source's own line when it has
 * one, else one made from the file's name and description). Nothing at the source is touched. A
 * file already here with the same content is skipped, so a second run imports nothing; one here
 * with other content is never overwritten (reported instead).
 */
import { lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { EngramError, errnoCode } from '../util/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/file-modes.js';
import { INDEX_FILE } from './constants.js';
import { parseFrontmatter, stringField } from './frontmatter.js';
import {
  type IndexEntry,
  parseIndexEntries,
  renderIndexLine,
  updateIndex,
  upsertIndexLine,
} from './index-file.js';
import { checkMemoryFileName } from './memory-file.js';

export interface ImportResult {
  from: string;
  to: string;
  /** Files copied now, each with its index line. */
  imported: string[];
  /** Files not copied, and why (already here, different content here, refused name). */
  skipped: Array<{ file: string; reason: string }>;
}

/** The index line for an imported file: the source's own, else one from its frontmatter. Pure. */
export function importedIndexLine(file: string, text: string, entry?: IndexEntry): string {
  if (entry !== undefined) return renderIndexLine(entry.title || file, file, entry.hook);
  const { data } = parseFrontmatter(text);
  const name = stringField(data, 'name') ?? file.replace(/\.md$/, '');
  return renderIndexLine(name, file, stringField(data, 'description') ?? '');
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Topic files at the top of the source: regular `.md` files other than the index. */
async function topicFiles(from: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(from);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR')
      throw new EngramError('not_found', `no memory directory at ${from}`, { cause: error });
    throw error;
  }
  const files: string[] = [];
  for (const name of names.sort()) {
    if (name === INDEX_FILE || !name.endsWith('.md') || name.startsWith('.')) continue;
    // A link could point anywhere (~/.ssh): only plain files are read.
    if ((await lstat(join(from, name))).isFile()) files.push(name);
  }
  return files;
}

export interface ImportOptions {
  /**
   * Replace a file here whose content differs (the caller has the user's consent, as
   * `engram agent sync-snapshot` does); files only here always stay. Default false: never overwrite.
   */
  overwrite?: boolean;
}

export async function importMemoryDir(
  from: string,
  to: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const files = await topicFiles(from);
  const entries = new Map(
    parseIndexEntries((await readOptional(join(from, INDEX_FILE))) ?? '').map((e) => [e.file, e]),
  );
  const result: ImportResult = { from, to, imported: [], skipped: [] };
  const lines: Array<[string, string]> = [];
  await mkdir(to, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const file of files) {
    const refused = checkMemoryFileName(file);
    if (refused !== undefined) {
      result.skipped.push({ file, reason: refused });
      continue;
    }
    const text = await readFile(join(from, file), 'utf8');
    const here = await readOptional(join(to, file));
    if (here === text) {
      result.skipped.push({ file, reason: 'already imported' });
      continue;
    }
    if (here !== undefined && options.overwrite !== true) {
      result.skipped.push({ file, reason: 'a different memory with this name is here' });
      continue;
    }
    await writeFileAtomic(join(to, file), text, { mode: PRIVATE_FILE_MODE });
    lines.push([file, importedIndexLine(file, text, entries.get(file))]);
    result.imported.push(file);
  }
  if (lines.length > 0)
    await updateIndex(to, (current) =>
      lines.reduce((text, [file, line]) => upsertIndexLine(text, file, line), current),
    );
  return result;
}
