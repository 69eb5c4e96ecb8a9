import { isAbsolute, join } from 'node:path';
import { hasControlCharacter, writeNameProblem } from '../confine/index.js';
import { type Clock, type LegacyNow, resolveClock } from '../util/clock.js';
import { EngramError, errnoCode } from '../util/errors.js';
import { memoryDirConfinement } from './confined.js';
import { INDEX_FILE } from './constants.js';
import { withMemoryLock } from './dir-lock.js';
import { parseFrontmatter, renderFrontmatter, stringField } from './frontmatter.js';
import {
  parseIndexEntries,
  removeIndexLine,
  renderIndexLine,
  updateIndex,
  upsertIndexLine,
} from './index-file.js';
import { headerFromText, scanMemories } from './scan.js';
import { MEMORY_TYPES, type MemoryHeader, type MemoryType } from './types.js';

export interface MemoryInput {
  name: string;
  description: string;
  type: MemoryType;
  body: string;
  /** File name relative to the memory directory; derived from `name` when omitted. */
  file?: string;
  /** Extra frontmatter keys kept after the standard ones. */
  extra?: Record<string, unknown>;
}

export interface MemoryCheck {
  errors: string[];
  warnings: string[];
}

/**
 * The write gate's structural checks, phrased so a model can act on them. Pure.
 * A description is what recall decides from, so a memory without one is refused; feedback and
 * project memories without a reason age badly (nobody can tell when they stop applying).
 */
export function checkMemoryInput(input: Partial<MemoryInput>): MemoryCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (!input.name?.trim()) errors.push('A memory needs a name (a short, specific title).');
  if (!input.description?.trim()) {
    errors.push(
      'A memory needs a description: one specific line that says what it is about; recall decides from this line alone.',
    );
  } else if (/\n/.test(input.description.trim())) {
    errors.push('The description must be a single line.');
  }
  // Name and description go into MEMORY.md's line and so into every session's system prompt: a NUL
  // or a terminal escape there would reach the model (and the terminal of whoever reads the index).
  for (const [field, value] of [
    ['name', input.name],
    ['description', input.description],
  ] as const) {
    // The rule file names follow (confine/policy.ts), but for tabs and line breaks: plain text
    // here (a line break in a description is refused on its own, below).
    if (value !== undefined && hasControlCharacter(value.trim().replace(/[\t\r\n]/g, ' ')))
      errors.push(
        `The ${field} cannot hold control characters (NUL, escape codes): it goes into MEMORY.md and the system prompt. Write plain text.`,
      );
  }
  if (!input.type || !(MEMORY_TYPES as readonly string[]).includes(input.type)) {
    errors.push(`The type must be one of: ${MEMORY_TYPES.join(', ')}.`);
  }
  if (!input.body?.trim()) errors.push('A memory needs a body with the fact itself.');
  else if (input.body.includes('\0')) {
    // Such a file is never recalled (src/memdir/injectable.ts): refuse it rather than save it dead.
    errors.push('A memory cannot hold NUL bytes: a file with them is never recalled. Save text.');
  }
  if (
    (input.type === 'feedback' || input.type === 'project') &&
    !/\*\*Why:?\*\*/i.test(input.body ?? '')
  ) {
    warnings.push(
      `A ${input.type} memory should say **Why:** (the reason) and **How to apply:**, so a later reader can tell when it stops applying.`,
    );
  }
  if (input.file !== undefined) {
    const problem = checkMemoryFileName(input.file);
    if (problem) errors.push(problem);
  }
  return { errors, warnings };
}

/**
 * Characters a name may not carry because its index line would point elsewhere or break: `#` and
 * `%` change what a markdown link target means, brackets, angle brackets, backticks and quotes end
 * or open markdown syntax, `|` splits tables.
 */
const INDEX_BREAKING = /[#%[\]()<>`"|\\]/;

/**
 * A memory file name must stay inside the directory, be a visible topic file, and be safe to
 * write into MEMORY.md as one line that points at exactly that file. Returns a problem or undefined.
 */
export function checkMemoryFileName(file: string): string | undefined {
  const shown = JSON.stringify(file);
  if (!file.endsWith('.md')) return `Memory file names end in .md (got ${shown}).`;
  if (file.includes('\0')) return 'Memory file names cannot contain NUL.';
  if (isAbsolute(file) || file.includes('\\'))
    return `Memory file names are relative paths (got ${shown}).`;
  const parts = file.split('/');
  if (parts.some((p) => p === '..' || p === '.' || p.startsWith('.'))) {
    return `Memory file names cannot leave the directory or be hidden (got ${shown}).`;
  }
  for (const part of parts) {
    const problem = writeNameProblem(part);
    if (problem) return `Memory file name ${shown} is refused: ${problem}.`;
  }
  if (INDEX_BREAKING.test(file))
    return `Memory file name ${shown} is refused: # % [ ] ( ) < > \` " | would break its index line; use letters, digits, - and _.`;
  if (file === INDEX_FILE || file.endsWith(`/${INDEX_FILE}`))
    return `${INDEX_FILE} is the index, not a memory.`;
  return undefined;
}

/**
 * The looser check for names that already exist (reads, removes, revocations): a memory written
 * before names were checked can still be shown and retired. The confinement judges the path.
 */
export function checkExistingMemoryName(file: string): string | undefined {
  const shown = JSON.stringify(file);
  if (!file.endsWith('.md')) return `Memory file names end in .md (got ${shown}).`;
  if (file.includes('\0') || isAbsolute(file) || file.includes('\\'))
    return `Memory file names are relative paths (got ${shown}).`;
  if (file.split('/').some((p) => p === '..' || p === '.' || p.startsWith('.')))
    return `Memory file names cannot leave the directory or be hidden (got ${shown}).`;
  if (file === INDEX_FILE || file.endsWith(`/${INDEX_FILE}`))
    return `${INDEX_FILE} is the index, not a memory.`;
  return undefined;
}

/** `Use Bun, not npm!` → `use-bun-not-npm.md` (letters of any script are kept). Pure. */
export function memoryFileName(name: string): string {
  const slug = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  // `con`, `nul`, `lpt1`: device names on Windows, refused as files everywhere.
  const safe = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/.test(slug) ? `${slug}-memory` : slug;
  return `${safe || 'memory'}.md`;
}

export function renderMemory(input: MemoryInput): string {
  return renderFrontmatter(
    {
      name: input.name.trim(),
      description: input.description.trim(),
      type: input.type,
      ...input.extra,
    },
    input.body.trim(),
  );
}

export interface SaveResult {
  file: string;
  path: string;
  created: boolean;
  indexLine: string;
  warnings: string[];
}

/**
 * Save a memory: write the topic file, then add or update its pointer in MEMORY.md, both under
 * the directory's write lock and both atomic. A lock timeout writes nothing; a failed index update
 * puts the previous file back (or removes the new one). Only a crash between the two renames
 * leaves an orphan, which `audit` names.
 */
export async function saveMemory(dir: string, input: MemoryInput): Promise<SaveResult> {
  const check = checkMemoryInput(input);
  if (check.errors.length > 0) throw new EngramError('invalid_input', check.errors.join(' '));
  const file = input.file ?? memoryFileName(input.name);
  const path = join(dir, file);
  const confined = memoryDirConfinement(dir);
  const text = renderMemory(input);
  const rendered = renderIndexLine(input.name, file, input.description);
  return withMemoryLock(dir, async () => {
    const existed = (await confined.info(file)) !== undefined;
    const previous = existed ? (await confined.readText(file)).text : undefined;
    const before = previous === undefined ? undefined : headerFromText(dir, file, 0, previous);
    if (before?.status === 'revoked') {
      // A revoked memory is kept so it is never learned again: a save over it would erase that.
      throw new EngramError(
        'refused',
        `${file} holds a revoked memory (reason: ${String(before.frontmatter.reason ?? 'none given')}); save the new memory under another name or file so the revocation stays on record.`,
      );
    }
    await confined.writeText(file, text, { mode: 0o600 });
    let indexLine = rendered;
    try {
      const index = await updateIndex(dir, (current) => upsertIndexLine(current, file, rendered));
      // Report the line the index really holds: a person's own form (a table row, emphasis) is kept.
      indexLine = indexLineFor(index, file) ?? rendered;
    } catch (error) {
      const undo =
        previous === undefined
          ? confined.remove(file)
          : confined.writeText(file, previous, { mode: 0o600 });
      await undo.catch(() => {});
      throw error;
    }
    return { file, path, created: !existed, indexLine, warnings: check.warnings };
  });
}

/** The line of `index` that points at `file`, as written. Pure. */
function indexLineFor(index: string, file: string): string | undefined {
  const entry = parseIndexEntries(index).find((e) => e.file === file);
  return entry === undefined ? undefined : index.split('\n')[entry.line];
}

export interface MemoryDocument {
  header: MemoryHeader;
  /** The whole file as on disk. */
  content: string;
  /** The text after the frontmatter. */
  body: string;
}

/** Read one memory file in full. */
export async function readMemory(dir: string, file: string): Promise<MemoryDocument> {
  const problem = checkExistingMemoryName(file);
  if (problem) throw new EngramError('invalid_input', problem);
  let content: string;
  let mtimeMs: number;
  try {
    const read = await memoryDirConfinement(dir).readText(file);
    content = read.text;
    mtimeMs = read.mtimeMs;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT')
      throw new EngramError('not_found', `No memory named ${file} in ${dir}`);
    throw error;
  }
  const header = headerFromText(dir, file, mtimeMs, content);
  const body = header.hasFrontmatter ? parseFrontmatter(content).body : content;
  return { header, content, body };
}

/** Remove a memory's file and its index pointer together; says which of the two existed. */
export async function removeMemory(
  dir: string,
  file: string,
): Promise<{ removedFile: boolean; removedIndexLine: boolean }> {
  const problem = checkExistingMemoryName(file);
  if (problem) throw new EngramError('invalid_input', problem);
  return withMemoryLock(dir, async () => {
    let removedFile = true;
    try {
      await memoryDirConfinement(dir).remove(file);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
      removedFile = false;
    }
    let removedIndexLine = false;
    await updateIndex(dir, (text) => {
      const next = removeIndexLine(text, file);
      removedIndexLine = next !== text;
      return next;
    });
    return { removedFile, removedIndexLine };
  });
}

export interface RevokeOptions {
  reason: string;
  supersededBy?: string;
  /** When it was revoked (default the system clock). */
  clock?: Clock;
  /** @deprecated pass `clock`. */
  now?: LegacyNow;
}

/**
 * Revoke a memory that turned out wrong: it stays on disk, marked, so extraction and consolidation
 * do not learn it again, but it loses its index line and is never recalled.
 */
export async function revokeMemory(
  dir: string,
  file: string,
  options: RevokeOptions,
): Promise<void> {
  if (!options.reason.trim())
    throw new EngramError('invalid_input', 'A revocation needs a reason.');
  if (options.supersededBy !== undefined) {
    const problem = checkMemoryFileName(options.supersededBy);
    if (problem) throw new EngramError('invalid_input', problem);
  }
  await withMemoryLock(dir, () => revokeLocked(dir, file, options));
}

async function revokeLocked(dir: string, file: string, options: RevokeOptions): Promise<void> {
  const doc = await readMemory(dir, file);
  const parsed = parseFrontmatter(doc.content);
  if (parsed.error !== undefined) {
    // Rewriting unparseable YAML would either drop its fields or leave the revocation unreadable.
    throw new EngramError(
      'invalid_input',
      `Cannot revoke ${file}: its frontmatter is not valid YAML (${parsed.error.split('\n')[0]}). Fix the frontmatter first.`,
    );
  }
  const data = parsed.found ? { ...parsed.data } : {};
  if (!stringField(data, 'name')) data.name = file.replace(/\.md$/, '');
  data.status = 'revoked';
  data.revoked = new Date(resolveClock(options).now()).toISOString().slice(0, 10);
  data.reason = options.reason.replace(/\s+/g, ' ').trim();
  if (options.supersededBy !== undefined) data.superseded_by = options.supersededBy;
  await memoryDirConfinement(dir).writeText(
    file,
    renderFrontmatter(data, parsed.found ? parsed.body : doc.content),
    { mode: 0o600 },
  );
  await updateIndex(dir, (text) => removeIndexLine(text, file));
}

/**
 * People and models name memories loosely: `a.md`, `a`, or the memory's title. Resolve to the file,
 * trying the exact file first so a precise reference always wins; an ambiguous title is an error.
 */
export async function resolveMemoryRef(dir: string, ref: string): Promise<string> {
  const trimmed = ref.trim();
  if (trimmed.endsWith('.md')) return trimmed;
  const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
  const files = new Set(scan.memories.map((m) => m.file));
  for (const candidate of [`${trimmed}.md`, memoryFileName(trimmed)]) {
    if (files.has(candidate)) return candidate;
  }
  const byName = scan.memories.filter(
    (m) => m.name?.trim().toLowerCase() === trimmed.toLowerCase(),
  );
  if (byName.length === 1) return byName[0]!.file;
  if (byName.length > 1) {
    throw new EngramError(
      'invalid_input',
      `Several memories are named "${trimmed}": ${byName.map((m) => m.file).join(', ')}. Name the file.`,
    );
  }
  throw new EngramError(
    'not_found',
    `No memory named ${trimmed} in ${dir}; list the memories to see the files.`,
  );
}
