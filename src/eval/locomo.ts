/**
 * Loads the LoCoMo benchmark (Maharana et al., ACL 2024; CC BY-NC 4.0) from where it lies — the
 * release zip, an unpacked directory, or a JSON file — without copying it anywhere.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EngramError } from '../util/errors.js';
import { normalizeDiaIds } from './dia-ids.js';
import { readZipEntries } from './zip.js';

export interface LocomoObservation {
  /** Position in the conversation (stable tie-breaker and memory file name). */
  index: number;
  session: number;
  speaker: string;
  text: string;
  /** Canonical dialog ids the observation was drawn from (usually one). */
  diaIds: string[];
}

export interface LocomoQuestion {
  question: string;
  category: number;
  /** Canonical evidence ids; empty when the release gives none that parse. */
  evidence: string[];
}

export interface LocomoConversation {
  /** The conversation's id: the member's base name in the release ("26"), or its sample_id. */
  sample: string;
  observations: LocomoObservation[];
  questions: LocomoQuestion[];
}

/** Conversations the ranker may be tuned on; the other five are held out. */
export const DEV_SAMPLES: readonly string[] = ['26', '30', '41', '42', '43'];

/** The zip names a conversation "26", the combined JSON "conv-26": one key for both. Pure. */
export function conversationKey(sample: string): string {
  return sample.replace(/^conv-/, '');
}

export function splitOf(sample: string): 'dev' | 'heldout' {
  return DEV_SAMPLES.includes(conversationKey(sample)) ? 'dev' : 'heldout';
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One conversation from the release's flat object, or the nested form of locomo10.json. */
export function parseConversation(raw: unknown, fallbackSample: string): LocomoConversation {
  if (!isObject(raw)) throw new EngramError('invalid_input', `${fallbackSample}: not an object`);
  const flat: Json = { ...raw };
  if (isObject(raw.conversation)) Object.assign(flat, raw.conversation);
  if (isObject(raw.observation)) Object.assign(flat, raw.observation);
  const sample = typeof raw.sample_id === 'string' ? raw.sample_id : fallbackSample;
  if (!Array.isArray(flat.qa)) throw new EngramError('invalid_input', `${sample}: no qa list`);

  const sessions = Object.keys(flat)
    .map((key) => /^session_(\d+)_observation$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ key: m[0], session: Number(m[1]) }))
    .sort((a, b) => a.session - b.session);
  const observations: LocomoObservation[] = [];
  for (const { key, session } of sessions) {
    const bySpeaker = flat[key];
    if (!isObject(bySpeaker)) continue;
    for (const [speaker, facts] of Object.entries(bySpeaker)) {
      if (!Array.isArray(facts)) continue;
      for (const fact of facts) {
        if (!Array.isArray(fact) || typeof fact[0] !== 'string') continue;
        const index = observations.length;
        observations.push({
          index,
          session,
          speaker,
          text: fact[0],
          diaIds: normalizeDiaIds(fact[1]),
        });
      }
    }
  }

  const questions: LocomoQuestion[] = [];
  for (const item of flat.qa) {
    if (!isObject(item) || typeof item.question !== 'string') continue;
    questions.push({
      question: item.question,
      category: Number(item.category),
      evidence: normalizeDiaIds(item.evidence),
    });
  }
  return { sample, observations, questions };
}

function sampleName(member: string): string {
  return (member.split('/').pop() ?? member).replace(/\.json$/i, '');
}

function parseJsonFile(name: string, text: string): LocomoConversation[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new EngramError('invalid_input', `${name}: not valid JSON`, { cause: error });
  }
  if (Array.isArray(raw)) return raw.map((item, i) => parseConversation(item, `${i}`));
  return [parseConversation(raw, sampleName(name))];
}

function jsonFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsonFilesUnder(path));
    else if (entry.name.toLowerCase().endsWith('.json')) out.push(path);
  }
  return out;
}

function byNumericSample(a: LocomoConversation, b: LocomoConversation): number {
  const na = Number(a.sample.replace(/\D/g, ''));
  const nb = Number(b.sample.replace(/\D/g, ''));
  return na - nb || (a.sample < b.sample ? -1 : a.sample > b.sample ? 1 : 0);
}

/** Reads `path`: the release zip, a directory holding it or its JSON files, or one JSON file. */
export function loadLocomo(path: string): LocomoConversation[] {
  if (!existsSync(path)) throw new EngramError('not_found', `LoCoMo data not found: ${path}`);
  let conversations: LocomoConversation[];
  if (statSync(path).isDirectory()) {
    const zip = join(path, 'locomo10.zip');
    if (existsSync(zip)) return loadLocomo(zip);
    const files = jsonFilesUnder(path).sort();
    conversations = files.flatMap((f) => parseJsonFile(f, readFileSync(f, 'utf8')));
    // A folder holding the release under another name (a download renamed "locomo.zip").
    if (files.length === 0) {
      const zips = readdirSync(path).filter((n) => n.toLowerCase().endsWith('.zip'));
      conversations = zips.sort().flatMap((n) => loadLocomo(join(path, n)));
    }
  } else if (path.toLowerCase().endsWith('.json')) {
    conversations = parseJsonFile(path, readFileSync(path, 'utf8'));
  } else {
    conversations = readZipEntries(readFileSync(path))
      .filter((e) => e.name.toLowerCase().endsWith('.json') && !e.name.includes('__MACOSX'))
      .flatMap((e) => parseJsonFile(e.name, e.read().toString('utf8')));
  }
  if (conversations.length === 0) {
    throw new EngramError('invalid_input', `no LoCoMo conversations found in ${path}`);
  }
  return conversations.sort(byNumericSample);
}

/** The environment variable that names the LoCoMo data when `--data` is not given. */
export const LOCOMO_DATA_ENV = 'ENGRAM_LOCOMO_DATA';

/**
 * Where the LoCoMo data is when no `--data` was given: the `ENGRAM_LOCOMO_DATA` environment
 * variable, or nothing. The data set is not ours to ship (its licence is non-commercial), so
 * engram never looks for it anywhere else.
 */
export function defaultLocomoPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env[LOCOMO_DATA_ENV]?.trim();
  return configured ? configured : undefined;
}
