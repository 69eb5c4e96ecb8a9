import { MAX_MEMORY_BYTES, MAX_MEMORY_LINES } from './constants.js';

export interface TruncateLimits {
  maxLines: number;
  maxBytes: number;
}

export interface TruncatedContent {
  /** A prefix of the input; when cut, it ends at a newline (or is empty). */
  text: string;
  truncated: boolean;
  originalBytes: number;
  originalLines: number;
}

const NEWLINE = 0x0a;

/** Lines as a reader counts them: a final newline does not start another line. Pure. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  // indexOf scans for the newline natively; recall counts every injected memory's lines each turn.
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/**
 * Cap a memory's text at `maxLines` lines AND `maxBytes` UTF-8 bytes, whichever comes first,
 * cutting after the last complete line so no half line (or half character) reaches the model:
 * a half sentence reads as a different claim. Pure; the caller adds the note that says so.
 */
export function truncateMemoryContent(
  content: string,
  limits: TruncateLimits = { maxLines: MAX_MEMORY_LINES, maxBytes: MAX_MEMORY_BYTES },
): TruncatedContent {
  const buf = Buffer.from(content, 'utf8');
  const originalLines = countLines(content);
  const base = { originalBytes: buf.length, originalLines };
  if (buf.length <= limits.maxBytes && originalLines <= limits.maxLines) {
    return { text: content, truncated: false, ...base };
  }
  // End after the maxLines-th newline: '\n' is one byte in UTF-8 and never inside a character.
  let end = buf.length;
  let seen = 0;
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === NEWLINE && ++seen === limits.maxLines) {
      end = i + 1;
      break;
    }
  }
  if (limits.maxLines <= 0) end = 0;
  if (end > limits.maxBytes) {
    const last = buf.lastIndexOf(NEWLINE, Math.max(0, limits.maxBytes - 1));
    end = last >= 0 && last < limits.maxBytes ? last + 1 : 0;
  }
  return { text: buf.subarray(0, end).toString('utf8'), truncated: true, ...base };
}
