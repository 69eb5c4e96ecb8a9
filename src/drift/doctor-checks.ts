/**
 * The doctor's content checks: pure functions of a memory's text and plain data. Each returns
 * what it found; the doctor turns that into findings with a fix.
 */

/** A relative date in a memory that was never made absolute ("next Thursday" read a week later). */
export interface RelativeDate {
  /** 1-based line in the file. */
  line: number;
  text: string;
}

const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const RELATIVE_DATE = new RegExp(
  [
    String.raw`\b(?:yesterday|today|tomorrow|tonight|last night|this morning|this afternoon|this evening|the day after tomorrow|the other day)\b`,
    String.raw`\b(?:next|last|this|coming|past)\s+(?:week|month|year|quarter|sprint|weekend|${WEEKDAYS})\b`,
    String.raw`\b(?:on\s+)?(?:${WEEKDAYS})\s+(?:next|last)\s+week\b`,
    String.raw`\bin\s+(?:a|an|one|two|three|a few|\d+)\s+(?:days?|weeks?|months?)\b`,
    String.raw`\b(?:a|an|one|two|three|a few|\d+)\s+(?:days?|weeks?|months?)\s+(?:ago|from now)\b`,
    '(?:昨天|今天|明天|前天|后天|下周|上周|本周|下个月|上个月)',
  ].join('|'),
  'gi',
);

/**
 * Relative dates in a memory's text, with their line numbers. Fenced code is skipped (a snippet
 * may well print "yesterday"). Pure.
 */
export function findRelativeDates(content: string): RelativeDate[] {
  const found: RelativeDate[] = [];
  let fenced = false;
  content.split('\n').forEach((raw, i) => {
    if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced;
    if (fenced) return;
    for (const m of raw.matchAll(RELATIVE_DATE)) found.push({ line: i + 1, text: m[0] });
  });
  return found;
}

/** True when the body states its reason (`**Why:**`), as feedback and project memories must. Pure. */
export function hasWhy(body: string): boolean {
  return /\*\*Why:?\*\*/i.test(body);
}

export type Polarity = 'correction' | 'confirmation' | 'mixed' | 'neither';

const CORRECTION =
  /\b(?:don['’]t|do not|doesn['’]t|never|stop|avoid|wrong|instead|no longer|shouldn['’]t|should not|must not|mustn['’]t|can['’]t|won['’]t|incorrect|mistake|corrected|correction|rather than|not)\b|^\s*no\b|不要|别|错/im;
const CONFIRMATION =
  /\b(?:keep|good|great|right|correct|correctly|exactly|perfect|works|worked|yes|liked|approved|continue|well done|as before|spot on)\b|很好|对的|继续/i;

/**
 * Whether a feedback memory records a correction ("don't…") or a confirmation ("keep doing…"),
 * by keywords in its rule (the text before **Why:**). A sieve, not a verdict: it exists to show a
 * directory that only ever learns from mistakes, which drifts away from what already worked. Pure.
 */
export function feedbackPolarity(body: string): Polarity {
  const rule = body.split(/\*\*Why:?\*\*/i)[0] ?? body;
  const correction = CORRECTION.test(rule);
  const confirmation = CONFIRMATION.test(rule);
  if (correction && confirmation) return 'mixed';
  if (correction) return 'correction';
  if (confirmation) return 'confirmation';
  return 'neither';
}

/**
 * When the polarity counts deserve a warning: at least this many corrections and at most one
 * confirmation per this many. A handful of memories says nothing either way.
 */
export const POLARITY_MIN_CORRECTIONS = 5;
export const POLARITY_MAX_RATIO = 5;

export function polarityIsLopsided(corrections: number, confirmations: number): boolean {
  return (
    corrections >= POLARITY_MIN_CORRECTIONS && corrections > confirmations * POLARITY_MAX_RATIO
  );
}

const STOP_WORDS = new Set(
  'a an the and or of to in on for with is are be it this that when how what use uses using not no do'.split(
    ' ',
  ),
);

function descriptionTokens(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 1 && !STOP_WORDS.has(w)),
  );
}

/** Two descriptions this similar (Jaccard over their words) say the same thing. */
export const NEAR_DUPLICATE_SIMILARITY = 0.8;

/**
 * Pairs of memories whose descriptions nearly match: recall decides from that line alone, so two
 * near-identical lines compete for one slot, or one of them is stale. Pure.
 */
export function nearDuplicateDescriptions(
  memories: ReadonlyArray<{ file: string; description: string }>,
): Array<{ a: string; b: string; similarity: number }> {
  const tokens = memories.map((m) => ({ file: m.file, words: descriptionTokens(m.description) }));
  const pairs: Array<{ a: string; b: string; similarity: number }> = [];
  for (let i = 0; i < tokens.length; i++) {
    for (let j = i + 1; j < tokens.length; j++) {
      const x = tokens[i]!;
      const y = tokens[j]!;
      if (x.words.size < 2 || y.words.size < 2) continue;
      let shared = 0;
      for (const w of x.words) if (y.words.has(w)) shared++;
      const similarity = shared / (x.words.size + y.words.size - shared);
      if (similarity >= NEAR_DUPLICATE_SIMILARITY) pairs.push({ a: x.file, b: y.file, similarity });
    }
  }
  return pairs;
}
