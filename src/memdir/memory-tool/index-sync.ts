import { basename } from 'node:path';
import { errnoCode } from '../../util/errors.js';
import { memoryDirConfinement } from '../confined.js';
import {
  checkMemoryFileName,
  headerFromText,
  removeIndexLine,
  renderIndexLine,
  updateIndex,
  upsertIndexLine,
} from '../index.js';

/** A file the index should point at: a `.md` memory inside the directory, not MEMORY.md itself. */
export function isTopicFile(rel: string): boolean {
  return rel !== '' && checkMemoryFileName(rel) === undefined;
}

export interface IndexSyncOutcome {
  file: string;
  indexed: boolean;
  revoked: boolean;
  missingDescription: boolean;
}

/** The index line a topic file should have, or undefined when it should have none (revoked, gone). */
async function lineFor(
  root: string,
  rel: string,
): Promise<{ line?: string; outcome: IndexSyncOutcome }> {
  const outcome: IndexSyncOutcome = {
    file: rel,
    indexed: false,
    revoked: false,
    missingDescription: false,
  };
  let text: string;
  try {
    text = (await memoryDirConfinement(root).readText(rel)).text;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { outcome };
    throw error;
  }
  const header = headerFromText(root, rel, 0, text);
  if (header.status === 'revoked') return { outcome: { ...outcome, revoked: true } };
  const title = header.name ?? basename(rel, '.md');
  outcome.indexed = true;
  outcome.missingDescription = !header.description;
  return { line: renderIndexLine(title, rel, header.description ?? ''), outcome };
}

/** Second step of the save: add, update or drop the MEMORY.md line for one topic file. */
export async function syncIndex(root: string, rel: string): Promise<IndexSyncOutcome> {
  const { line, outcome } = await lineFor(root, rel);
  await updateIndex(root, (text) =>
    line === undefined ? removeIndexLine(text, rel) : upsertIndexLine(text, rel, line),
  );
  return outcome;
}

/**
 * Keep the index in step after files moved or were deleted (`to` absent): a moved memory keeps
 * its line's position, a deleted one loses its line. One locked update for the whole batch.
 */
export async function syncRenamedIndex(
  root: string,
  moves: ReadonlyArray<{ from: string; to?: string }>,
): Promise<void> {
  if (moves.length === 0) return;
  const lines = await Promise.all(
    moves.map(async (m) =>
      m.to !== undefined && isTopicFile(m.to) ? (await lineFor(root, m.to)).line : undefined,
    ),
  );
  await updateIndex(root, (current) => {
    let text = current;
    moves.forEach((move, i) => {
      const line = lines[i];
      if (move.to !== undefined) text = removeIndexLine(text, move.to);
      if (line === undefined || move.to === undefined) {
        text = removeIndexLine(text, move.from);
      } else {
        text = upsertIndexLine(text, move.from, line);
      }
    });
    return text;
  });
}

/** What the model is told after a write, when the index could not describe the memory. */
export function indexNote(outcome: IndexSyncOutcome): string {
  if (!outcome.indexed || !outcome.missingDescription) return '';
  return `\nNote: ${outcome.file} has no \`description\` in its frontmatter, so recall cannot select it. Start the file with frontmatter: name, description (one specific line), type (user, feedback, project or reference).`;
}
