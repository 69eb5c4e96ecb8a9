/**
 * Measurements and checks on notes text: section sizes (for the reminder before an update), the
 * per-section truncation used when notes replace history, and the self-reference check (an
 * updater sees its own instruction in context and may narrate it into the notes).
 */
import { estimateTextTokens } from '../llm/tokens.js';
import { parseNotes } from './notes-structure.js';
import { type OversizedSection, sectionSizeReminder, sectionTruncatedMarker } from './prompts.js';

export interface NotesLimits {
  /** Per section, in estimated tokens (default 2,000). */
  maxSectionTokens: number;
  /** Whole file, in estimated tokens (default 12,000). */
  maxTotalTokens: number;
  /** Per section when notes replace history, in characters (default 8,000 = 2,000 tokens × 4). */
  maxSectionCharsForCompaction: number;
}

export const DEFAULT_NOTES_LIMITS: NotesLimits = {
  maxSectionTokens: 2_000,
  maxTotalTokens: 12_000,
  maxSectionCharsForCompaction: 8_000,
};

export interface NotesSizeReport {
  totalTokens: number;
  sections: Array<{ title: string; tokens: number }>;
  oversized: OversizedSection[];
  overBudget: boolean;
  /** Text to add to the update instruction ('' when everything fits). */
  reminder: string;
}

/** Measure each section with the shared estimator and build the reminder for the updater. */
export function measureNotes(
  text: string,
  limits: NotesLimits = DEFAULT_NOTES_LIMITS,
): NotesSizeReport {
  const parsed = parseNotes(text);
  const sections = parsed.sections.map((s) => ({
    title: s.title,
    tokens: estimateTextTokens(`# ${s.title}\n${s.lines.join('\n')}`),
  }));
  const totalTokens = estimateTextTokens(text);
  const oversized = sections
    .filter((s) => s.tokens > limits.maxSectionTokens)
    .sort((a, b) => b.tokens - a.tokens);
  return {
    totalTokens,
    sections,
    oversized,
    overBudget: totalTokens > limits.maxTotalTokens,
    reminder: sectionSizeReminder(oversized, totalTokens, limits),
  };
}

export interface TruncatedNotes {
  text: string;
  /** Titles of sections that were shortened. */
  truncatedSections: string[];
}

/** Shorten sections over the character limit at a line boundary, with a marker naming the file. */
export function truncateNotesForCompaction(
  text: string,
  notesPath: string,
  maxSectionChars: number = DEFAULT_NOTES_LIMITS.maxSectionCharsForCompaction,
): TruncatedNotes {
  const parsed = parseNotes(text);
  const truncatedSections: string[] = [];
  const parts: string[] = [];
  if (parsed.preamble.some((l) => l.trim() !== '')) parts.push(parsed.preamble.join('\n'));
  for (const section of parsed.sections) {
    let body = section.lines.join('\n');
    if (body.length > maxSectionChars) {
      const cut = body.lastIndexOf('\n', maxSectionChars);
      // A single huge line has no newline to cut at: cut inside it rather than keep it whole.
      body = `${body.slice(0, cut > 0 ? cut : maxSectionChars)}\n${sectionTruncatedMarker(notesPath)}\n`;
      truncatedSections.push(section.title);
    }
    parts.push(`# ${section.title}\n${body}`);
  }
  if (truncatedSections.length === 0) return { text, truncatedSections };
  return { text: parts.join('\n'), truncatedSections };
}

export interface SelfReference {
  line: number;
  text: string;
}

// Phrases in which notes talk about being notes. "release notes" or "notes on the API" do not match.
const SELF_REFERENCE_PATTERNS: readonly RegExp[] = [
  /\bnote[- ]?taking\b/i,
  /\bsession[- ]notes?\b/i,
  /\b(?:updat|edit|writ|maintain|tak|refresh|record)(?:e|es|ed|ing)\s+(?:the\s+|these\s+|my\s+|this\s+)?(?:session\s+)?notes\b(?!\s+(?:on|about|for)\b)/i,
  /\bnotes\s+(?:file|update|updater)\b/i,
  /\b(?:these|the\s+update)\s+instructions\b/i,
  /\bbackground\s+helper\b/i,
];

/** Lines of the notes content (template lines excluded) that talk about the note-taking itself. */
export function findSelfReferences(
  text: string,
  templateLines: readonly string[] = [],
): SelfReference[] {
  const skip = new Set(templateLines.map((l) => l.trim()));
  const found: SelfReference[] = [];
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (!trimmed || skip.has(trimmed) || /^# /.test(trimmed)) return;
    if (SELF_REFERENCE_PATTERNS.some((p) => p.test(line)))
      found.push({ line: index + 1, text: trimmed });
  });
  return found;
}
