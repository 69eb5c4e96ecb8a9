/**
 * Everyday English as a prior on evidence. A small memory directory cannot say which of its words
 * are specific: in twenty memories "name" (from "Kafka topic names follow…") is as rare as "kafka",
 * so a prompt about naming a puppy looks like evidence for the Kafka note. What a word means
 * outside the directory can: the most frequent words of everyday spoken English ("name", "order",
 * "after", "ask") are shared by prompts of every domain, while the words of software work
 * ("kafka", "latency", "deploy", "migration", "signing", "tests") are rare there. The frequencies
 * come from SUBTLEX-US (everyday-words.ts, generated); one rank threshold, not a list grown per
 * case. Words are judged as the prompt writes them, before stemming: "signing" a release is not an
 * everyday "sign".
 */
import { EVERYDAY_WORDS } from './everyday-words.js';

/** A word among this many of the most frequent in spoken English is an everyday word. */
export const EVERYDAY_RANK = 1200;

let everyday: ReadonlySet<string> | undefined;

/** True for a lower-case word among the EVERYDAY_RANK most frequent of spoken English. */
export function isEverydayWord(word: string): boolean {
  everyday ??= new Set(EVERYDAY_WORDS.slice(0, EVERYDAY_RANK));
  return everyday.has(word);
}
