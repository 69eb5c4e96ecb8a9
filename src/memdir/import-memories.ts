/**
 * Bring another memory directory in the same format (Claude Code's auto memory) into engram's:
 * each topic file copied as it is, each with its index line (the source's own line when it has
 * one, else one made from the file's name and description). Nothing at the source is touched. A
 * file already here with the same content is skipped, so a second run imports nothing; one here
 * with other content is never overwritten (reported instead). Both sides go through the one
 * confinement: a source file that is a link or a hard link (a second name for `~/.ssh/id_ed25519`)
 * is skipped, never copied into memory where recall would inject it.
 */
import { lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Confinement, ConfinementError, createConfinement } from '../confine/index.js';
import { EngramError, errnoCode } from '../util/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/file-modes.js';
import { memoryDirConfinement } from './confined.js';
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

/** The file's text, undefined when it does not exist; a refusal is thrown as ConfinementError. */
async function readOptional(dir: Confinement, file: string): Promise<string | undefined> {
  try {
    return (await dir.readText(file)).text;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

const refusal = (error: unknown): string | undefined =>
  error instanceof ConfinementError ? error.reason : undefined;

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
  // The source is read-only here; the destination is the memory directory's own confinement.
  const source = createConfinement({ roots: [{ path: from, write: false }], base: from });
  const dest = memoryDirConfinement(to);
  const sourceIndex = await readOptional(source, INDEX_FILE).catch((error: unknown) => {
    if (refusal(error) === undefined) throw error;
    return undefined;
  });
  const entries = new Map(parseIndexEntries(sourceIndex ?? '').map((e) => [e.file, e]));
  const result: ImportResult = { from, to, imported: [], skipped: [] };
  const lines: Array<[string, string]> = [];
  await mkdir(to, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const file of files) {
    const refused = checkMemoryFileName(file);
    if (refused !== undefined) {
      result.skipped.push({ file, reason: refused });
      continue;
    }
    let text: string;
    let here: string | undefined;
    try {
      text = (await source.readText(file)).text;
      here = await readOptional(dest, file);
    } catch (error) {
      const reason = refusal(error);
      if (reason === undefined) throw error;
      result.skipped.push({ file, reason });
      continue;
    }
    if (here === text) {
      result.skipped.push({ file, reason: 'already imported' });
      continue;
    }
    if (here !== undefined && options.overwrite !== true) {
      result.skipped.push({ file, reason: 'a different memory with this name is here' });
      continue;
    }
    try {
      await dest.writeText(file, text, { mode: PRIVATE_FILE_MODE });
    } catch (error) {
      const reason = refusal(error);
      if (reason === undefined) throw error;
      result.skipped.push({ file, reason });
      continue;
    }
    lines.push([file, importedIndexLine(file, text, entries.get(file))]);
    result.imported.push(file);
  }
  if (lines.length > 0)
    await updateIndex(to, (current) =>
      lines.reduce((text, [file, line]) => upsertIndexLine(text, file, line), current),
    );
  return result;
}
