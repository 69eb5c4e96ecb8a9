/**
 * List the markdown files of a `.claude/rules/` folder, recursively. Symlinked folders are
 * followed once (a link back to an ancestor would otherwise loop forever).
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../util/errors.js';
import { MAX_RULES_DIR_DEPTH } from './constants.js';
import type { InstructionReport } from './types.js';

export async function listRuleFiles(
  rulesDir: string,
  reports: InstructionReport[],
): Promise<string[]> {
  const out: string[] = [];
  await walk(rulesDir, new Set(), 0, out, reports);
  return out;
}

async function walk(
  dir: string,
  visited: Set<string>,
  depth: number,
  out: string[],
  reports: InstructionReport[],
): Promise<void> {
  let entries: Dirent[];
  try {
    const real = await realpath(dir);
    if (visited.has(real) || depth > MAX_RULES_DIR_DEPTH) return;
    visited.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      reports.push({
        kind: 'unreadable',
        severity: 'warning',
        path: dir,
        message: `Cannot list rules folder (${code ?? String(error)}).`,
      });
    return;
  }
  // Sorted so the load order does not depend on the file system.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      const target = await stat(path).catch(() => undefined);
      isDir = target?.isDirectory() ?? false;
      isFile = target?.isFile() ?? false;
    }
    if (isDir) await walk(path, visited, depth + 1, out, reports);
    else if (isFile && entry.name.toLowerCase().endsWith('.md')) out.push(path);
  }
}
