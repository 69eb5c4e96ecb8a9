/**
 * A labeled recall set: a memory directory written as data, and prompts each with the memories
 * that should be recalled for it (`gold`). A prompt with no gold is an unrelated one: the right
 * answer is nothing. A memory may sit in the user layer (`scope: user`); recall then draws on both
 * directories as it does for real, the project winning on a name clash. JSON or YAML; see
 * docs/eval.md for the format.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { MEMORY_TYPES } from '../../memdir/types.js';
import { EngramError } from '../../util/errors.js';

export const LABELED_SCOPES = ['project', 'user'] as const;
export type LabeledScope = (typeof LABELED_SCOPES)[number];

const memorySchema = z.object({
  file: z.string().regex(/^[^/\\].*\.md$/, 'a memory file name ends in .md'),
  /** The layer the memory lives in (default project); `layer` is accepted for it. */
  scope: z.enum(LABELED_SCOPES).optional(),
  layer: z.enum(LABELED_SCOPES).optional(),
  type: z.enum(MEMORY_TYPES),
  name: z.string().optional(),
  description: z.string().min(1),
  body: z.string().optional(),
  /** Age of the file in days (its mtime); default 1. */
  ageDays: z.number().nonnegative().optional(),
});

const promptSchema = z
  .object({
    prompt: z.string().optional(),
    query: z.string().optional(),
    gold: z.array(z.string()).optional(),
    relevant: z.array(z.string()).optional(),
  })
  .refine((p) => (p.prompt ?? p.query) !== undefined, 'each prompt needs `prompt` (or `query`)');

const setSchema = z.object({
  name: z.string().optional(),
  about: z.string().optional(),
  memories: z.array(memorySchema).min(1),
  prompts: z.array(promptSchema).default([]),
  /** Unrelated prompts may also be listed on their own. */
  unrelated: z.array(z.string()).default([]),
});

export type LabeledMemory = Omit<z.infer<typeof memorySchema>, 'scope' | 'layer'> & {
  scope: LabeledScope;
};

export interface LabeledPrompt {
  prompt: string;
  /** Memory ids (see `labeledMemoryId`) that should be recalled; empty for an unrelated prompt. */
  gold: string[];
}

/**
 * How a memory is named in gold lists and in what recall selected: its file name in the project
 * layer (so sets without a user layer read as they always did), `user:<file>` in the user layer.
 */
export function labeledMemoryId(scope: string, file: string): string {
  return scope === 'project' ? file : `${scope}:${file}`;
}

/**
 * The memory a gold entry means: `user:<file>` and `project:<file>` name a layer; a bare file name
 * means the memory recall would see under that name, the project's when both layers have one.
 */
function resolveGold(entry: string, ids: ReadonlySet<string>): string | undefined {
  const qualified = /^(project|user):(.+)$/.exec(entry);
  if (qualified) {
    const id = labeledMemoryId(qualified[1]!, qualified[2]!);
    return ids.has(id) ? id : undefined;
  }
  for (const scope of LABELED_SCOPES) {
    const id = labeledMemoryId(scope, entry);
    if (ids.has(id)) return id;
  }
  return undefined;
}

export interface LabeledSet {
  name: string;
  memories: LabeledMemory[];
  prompts: LabeledPrompt[];
}

/** Validate a parsed set; every gold file must be one of the set's memories. Pure. */
export function parseLabeledSet(raw: unknown, fallbackName: string): LabeledSet {
  const parsed = setSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EngramError(
      'invalid_input',
      `${fallbackName}: not a labeled recall set (${issue?.path.join('.') || 'root'}: ${issue?.message})`,
    );
  }
  const data = parsed.data;
  const memories: LabeledMemory[] = [];
  for (const { scope, layer, ...m } of data.memories) {
    if (scope !== undefined && layer !== undefined && scope !== layer) {
      throw new EngramError(
        'invalid_input',
        `${fallbackName}: ${m.file} says scope ${scope} and layer ${layer}; give one`,
      );
    }
    memories.push({ ...m, scope: scope ?? layer ?? 'project' });
  }
  const ids = new Set(memories.map((m) => labeledMemoryId(m.scope, m.file)));
  if (ids.size !== memories.length) {
    throw new EngramError(
      'invalid_input',
      `${fallbackName}: a memory file is listed twice in the same layer`,
    );
  }
  const prompts: LabeledPrompt[] = [
    ...data.prompts.map((p) => ({
      prompt: (p.prompt ?? p.query)!,
      gold: p.gold ?? p.relevant ?? [],
    })),
    ...data.unrelated.map((prompt) => ({ prompt, gold: [] })),
  ].map((p) => {
    const gold = p.gold.map((entry) => {
      const id = resolveGold(entry, ids);
      if (id === undefined) {
        throw new EngramError(
          'invalid_input',
          `${fallbackName}: prompt "${p.prompt}" names ${entry}, which is not among the memories`,
        );
      }
      return id;
    });
    return { prompt: p.prompt, gold: [...new Set(gold)] };
  });
  return { name: data.name ?? fallbackName, memories, prompts };
}

/** Read a set from a .json, .yaml or .yml file. */
export async function loadLabeledSet(path: string): Promise<LabeledSet> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new EngramError('not_found', `labeled set not found: ${path}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new EngramError('invalid_input', `${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const base = path
    .split(/[\\/]/)
    .pop()!
    .replace(/\.(json|ya?ml)$/i, '');
  return parseLabeledSet(raw, base);
}

const SET_FILE = /\.(json|ya?ml)$/i;

/** The set files a path names: the file itself, or a directory's .json/.yaml/.yml files by name. */
export async function labeledSetFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch((error: unknown) => {
    throw new EngramError('not_found', `labeled set not found: ${path}`, { cause: error });
  });
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => SET_FILE.test(n)).sort();
  if (names.length === 0) {
    throw new EngramError('not_found', `no labeled sets (.json, .yaml, .yml) in ${path}`);
  }
  return names.map((n) => join(path, n));
}
