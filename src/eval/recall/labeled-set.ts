/**
 * A labeled recall set: a memory directory written as data, and prompts each with the memories
 * that should be recalled for it (`gold`). A prompt with no gold is an unrelated one: the right
 * answer is nothing. JSON or YAML; see docs/eval.md for the format.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { MEMORY_TYPES } from '../../memdir/types.js';
import { EngramError } from '../../util/errors.js';

const memorySchema = z.object({
  file: z.string().regex(/^[^/\\].*\.md$/, 'a memory file name ends in .md'),
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

export type LabeledMemory = z.infer<typeof memorySchema>;

export interface LabeledPrompt {
  prompt: string;
  /** Files that should be recalled; empty for an unrelated prompt. */
  gold: string[];
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
  const files = new Set(data.memories.map((m) => m.file));
  if (files.size !== data.memories.length) {
    throw new EngramError('invalid_input', `${fallbackName}: a memory file is listed twice`);
  }
  const prompts: LabeledPrompt[] = [
    ...data.prompts.map((p) => ({
      prompt: (p.prompt ?? p.query)!,
      gold: [...new Set(p.gold ?? p.relevant ?? [])],
    })),
    ...data.unrelated.map((prompt) => ({ prompt, gold: [] })),
  ];
  for (const p of prompts) {
    const missing = p.gold.find((g) => !files.has(g));
    if (missing !== undefined) {
      throw new EngramError(
        'invalid_input',
        `${fallbackName}: prompt "${p.prompt}" names ${missing}, which is not among the memories`,
      );
    }
  }
  return { name: data.name ?? fallbackName, memories: data.memories, prompts };
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
