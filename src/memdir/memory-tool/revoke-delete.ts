import { join } from 'node:path';
import type { Confinement } from '../../confine/index.js';
import type { Clock } from '../../util/clock.js';
import { memoryDirConfinement } from '../confined.js';
import { listMemoryFiles, readMemory, revokeMemory } from '../index.js';
import { isTopicFile } from './index-sync.js';

/**
 * Files the model sees as plain files (not memories) under `dir`: progress notes, logs. Hidden
 * entries are left alone: the listing never shows them, so the model cannot mean them.
 */
async function removePlainFiles(confined: Confinement, rel: string): Promise<void> {
  for (const entry of await confined.list(rel)) {
    if (entry.name.startsWith('.') || entry.kind === 'other') continue;
    const child = `${rel}/${entry.name}`;
    if (entry.kind === 'dir') {
      await removePlainFiles(confined, child);
      // Gone when it held only plain files; kept (ENOTEMPTY) when it holds revoked memories.
      await confined.remove(child).catch(() => {});
    } else if (!isTopicFile(entry.name)) {
      await confined.remove(child).catch(() => {});
    }
  }
}

/**
 * `delete` in revoke mode. A memory file, or every memory in a folder, is revoked (kept on disk,
 * off the index, never recalled or extracted again); a memory revoked earlier keeps its own
 * reason. A folder's plain files are deleted. Returns how many memories were kept, or 0 when
 * the target holds no memory (the caller then deletes it outright).
 */
export async function revokeForDelete(
  root: string,
  target: { rel: string; isDirectory: boolean },
  options: { reason: string; clock: Clock },
): Promise<number> {
  const memories = target.isDirectory
    ? (await listMemoryFiles(join(root, target.rel))).map((f) => `${target.rel}/${f}`)
    : isTopicFile(target.rel)
      ? [target.rel]
      : [];
  if (memories.length === 0) return 0;
  for (const file of memories) {
    const doc = await readMemory(root, file);
    if (doc.header.status !== 'revoked') await revokeMemory(root, file, options);
  }
  if (target.isDirectory) await removePlainFiles(memoryDirConfinement(root), target.rel);
  return memories.length;
}
