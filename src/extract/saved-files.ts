/**
 * What a fork actually saved, and whether those saves are well formed. Reading the fork's executed
 * tool calls (not its prose) is what makes the "Saved N memories" notice trustworthy.
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ForkToolCall } from '../llm/forked-agent.js';
import { INDEX_FILE } from '../memdir/constants.js';
import { parseFrontmatter, stringField } from '../memdir/frontmatter.js';
import { parseIndexEntries, readIndexRaw } from '../memdir/index-file.js';
import { checkMemoryInput } from '../memdir/memory-file.js';
import { isMemoryFileName } from '../memdir/scan.js';
import { parseMemoryType } from '../memdir/types.js';
import { errnoCode } from '../util/errors.js';
import {
  type LayeredPath,
  layeredPath,
  savedFileName,
  type WritePathContext,
  writeTargets,
} from './memory-writes.js';

/**
 * Topic files that executed, successful tool calls wrote, each with the layer it landed in, in
 * order of first write. Index updates are left out: they are bookkeeping, not something the user
 * learns from. Pure.
 */
export function savedMemoryFiles(
  calls: readonly ForkToolCall[],
  context: WritePathContext,
): LayeredPath[] {
  const files: LayeredPath[] = [];
  for (const call of calls) {
    if (!call.allowed || call.isError) continue;
    for (const target of writeTargets(call.name, call.input, context)) {
      const at = layeredPath(target, context);
      if (at === undefined || at.file === '' || !isMemoryFileName(basename(at.file))) continue;
      if (!files.some((f) => f.path === at.path)) files.push(at);
    }
  }
  return files;
}

/**
 * Topic files that executed, successful tool calls wrote: memory-directory-relative, a file in the
 * user layer by its absolute path (see `savedMemoryFiles` for the layer of each). Pure.
 */
export function savedTopicFiles(
  calls: readonly ForkToolCall[],
  context: WritePathContext,
): string[] {
  return savedMemoryFiles(calls, context).map(savedFileName);
}

/**
 * The write gate's structural checks applied after the fact to what the fork wrote: a memory
 * without a description cannot be recalled, a feedback memory without **Why:** ages badly, and a
 * file without an index line is an orphan. Returned as warnings so a run shows what went wrong.
 */
export async function checkSavedFiles(
  memoryDir: string,
  files: readonly string[],
  /** How a file is named in the warnings (default: as given). */
  label: (file: string) => string = (file) => file,
): Promise<string[]> {
  if (files.length === 0) return [];
  const warnings: string[] = [];
  const index = (await readIndexRaw(memoryDir)) ?? '';
  const pointed = new Set(parseIndexEntries(index).map((e) => e.file));
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(join(memoryDir, file), 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') continue; // renamed or moved within the same run
      throw error;
    }
    const fm = parseFrontmatter(text);
    const revoked = fm.data.status === 'revoked';
    const type = parseMemoryType(fm.data.type);
    const check = checkMemoryInput({
      name: stringField(fm.data, 'name') ?? '',
      description: stringField(fm.data, 'description') ?? '',
      ...(type === 'unknown' ? {} : { type }),
      body: fm.body,
    });
    for (const problem of [...check.errors, ...check.warnings])
      warnings.push(`${label(file)}: ${problem}`);
    if (!revoked && !pointed.has(file)) {
      warnings.push(
        `${label(file)}: no line in ${INDEX_FILE} points to it, so it is invisible (orphan).`,
      );
    }
  }
  return warnings;
}
