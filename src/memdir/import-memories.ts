/**
 * Bring another memory directory in the same format (Claude Code's auto memory) into engram's:
 * each topic file copied as it is, each with its index line (the source's own line when it has
 * one, else one made from the file's name and description). Nothing at the source is touched. A
 * file already here with the same content is skipped, so a second run imports nothing; one here
 * with other content is never overwritten (reported instead). Both sides go through the one
 * confinement: a source file that is a link or a hard link (a second name for `~/.ssh/id_ed25519`)
 * is skipped, never copied into memory where recall would inject it.
 */
import type { Dirent } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
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
  /**
   * Entries not copied, and why: a folder (named with a trailing `/`), a link, a file that is not
   * a `.md` topic file, one already here, one with different content here, a refused name.
   */
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

/**
 * Why a top-level entry of the source is not copied: a folder, a link (to a `.md` file or a
 * folder), a `.md` name that is not a regular file. Undefined for a topic file; 'ignore' for an
 * entry that is not a memory anywhere (no `.md`: `snapshot.json`, notes), which goes unmentioned.
 */
async function notCopied(from: string, entry: Dirent): Promise<string | undefined | 'ignore'> {
  const memoryName = entry.name.endsWith('.md');
  if (entry.isSymbolicLink()) {
    const folder = (await stat(join(from, entry.name)).catch(() => undefined))?.isDirectory();
    if (!memoryName && folder !== true) return 'ignore';
    // A link could point anywhere (~/.ssh): only plain files are read.
    return `${folder ? 'a linked folder' : 'a symbolic link'}: never followed, as it could lead anywhere; copy what it points at into the directory to import it`;
  }
  if (entry.isDirectory())
    return 'a folder: only the topic files at the top of the directory are imported';
  if (!memoryName) return 'ignore';
  return entry.isFile() ? undefined : 'not a regular file';
}

/**
 * Topic files at the top of the source (regular `.md` files other than the index), and the
 * entries that look like memories but are not copied, with why: a run says what did not come
 * across. Hidden entries (`.engram`, editor and temp files) are never memories and go unmentioned.
 */
async function topicFiles(
  from: string,
): Promise<{ files: string[]; skipped: ImportResult['skipped'] }> {
  let entries: Dirent[];
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR')
      throw new EngramError('not_found', `no memory directory at ${from}`, { cause: error });
    throw error;
  }
  const files: string[] = [];
  const skipped: ImportResult['skipped'] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name === INDEX_FILE || entry.name.startsWith('.')) continue;
    const reason = await notCopied(from, entry);
    if (reason === undefined) files.push(entry.name);
    else if (reason !== 'ignore')
      skipped.push({ file: entry.isDirectory() ? `${entry.name}/` : entry.name, reason });
  }
  return { files, skipped };
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
  const { files, skipped } = await topicFiles(from);
  // The source is read-only here; the destination is the memory directory's own confinement.
  const source = createConfinement({ roots: [{ path: from, write: false }], base: from });
  const dest = memoryDirConfinement(to);
  const sourceIndex = await readOptional(source, INDEX_FILE).catch((error: unknown) => {
    if (refusal(error) === undefined) throw error;
    return undefined;
  });
  const entries = new Map(parseIndexEntries(sourceIndex ?? '').map((e) => [e.file, e]));
  const result: ImportResult = { from, to, imported: [], skipped };
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
