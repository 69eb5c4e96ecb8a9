/**
 * Everyday words that are too weak to justify a recall on their own. "I need to know what you
 * think" shares "need" with "Tomato seedlings need hardening off", yet nothing about it is about
 * tomatoes. These words still score (they help order memories that match on something else), but a
 * memory whose only match with the query is among them is not "overlapping" and so is never
 * selected by real recall. The evaluation ranks everything and is unaffected.
 */
import { stemWord } from '../tokenize.js';

const WEAK_WORDS = (
  'need want wish know think believe feel keep go going come see look give take put try help ' +
  'like love again now still really well okay ok thanks thank sure next new good great fine ' +
  'right little bit lot way maybe actually best last week today ' +
  // The verbs and nouns of any coding request ("add", "fix the file", "run it", "explain this
  // code"): every prompt has them, so they cannot tell one memory from another. "user" is the
  // subject of every user-type memory ("User is a backend engineer"), whatever the prompt's
  // "users table" means.
  'add change update fix run write explain show check set work file code project thing user ' +
  'question start step ' +
  // The phrasing of any comparison ("the difference between X and Y", "X vs Y"); "VS Code" is
  // still found by the pair the two words make.
  'between vs versus ' +
  // Negations are kept by the tokenizer (they can carry meaning next to a topic word), but "not"
  // alone ties "will not start" to "real Postgres, not mocks".
  'not never no'
).split(' ');

const WEAK_STEMS: ReadonlySet<string> = new Set(WEAK_WORDS.map(stemWord));

/** True for the stem of a word too weak to select a memory by itself. */
export function isWeakTerm(stem: string): boolean {
  return WEAK_STEMS.has(stem);
}
