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
import { memoryRelativePath, type WritePathContext, writeTargets } from './memory-writes.js';

/**
 * Topic files (memory-directory-relative) that executed, successful tool calls wrote, in order of
 * first write. Index updates are left out: they are bookkeeping, not something the user learns
 * from. Pure.
 */
export function savedTopicFiles(
  calls: readonly ForkToolCall[],
  context: WritePathContext,
): string[] {
  const files: string[] = [];
  for (const call of calls) {
    if (!call.allowed || call.isError) continue;
    for (const target of writeTargets(call.name, call.input, context)) {
      const rel = memoryRelativePath(target, context);
      if (rel === undefined || rel === '' || !isMemoryFileName(basename(rel))) continue;
      if (!files.includes(rel)) files.push(rel);
    }
  }
  return files;
}

/**
 * The write gate's structural checks applied after the fact to what the fork wrote: a memory
 * without a description cannot be recalled, a feedback memory without **Why:** ages badly, and a
 * file without an index line is an orphan. Returned as warnings so a run shows what went wrong.
 */
export async function checkSavedFiles(
  memoryDir: string,
  files: readonly string[],
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
      warnings.push(`${file}: ${problem}`);
    if (!revoked && !pointed.has(file)) {
      warnings.push(`${file}: no line in ${INDEX_FILE} points to it, so it is invisible (orphan).`);
    }
  }
  return warnings;
}
