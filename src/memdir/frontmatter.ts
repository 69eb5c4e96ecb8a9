import { parse, stringify } from 'yaml';
import { FRONTMATTER_MAX_LINES } from './constants.js';

export interface ParsedFrontmatter {
  /** True when a `---` block opened on line 1 and closed within the line limit. */
  found: boolean;
  data: Record<string, unknown>;
  /** The body after the closing `---` (or the whole text when none was found). */
  body: string;
  /** Set when the YAML itself was malformed. */
  error?: string;
}

/**
 * Parse a `---` frontmatter block that must close within `maxLines` lines.
 * A block that does not close in time yields no usable header (the file still loads).
 */
export function parseFrontmatter(
  text: string,
  maxLines: number = FRONTMATTER_MAX_LINES,
): ParsedFrontmatter {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split('\n');
  if (lines[0]?.trimEnd() !== '---') return { found: false, data: {}, body: source };
  let close = -1;
  for (let i = 1; i < Math.min(lines.length, maxLines); i++) {
    if (lines[i]?.trimEnd() === '---') {
      close = i;
      break;
    }
  }
  if (close < 0) return { found: false, data: {}, body: source };
  // Files written on Windows end lines in CRLF; a stray `\r` would end up inside the last value.
  const yamlText = lines
    .slice(1, close)
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    .join('\n');
  const body = lines.slice(close + 1).join('\n');
  try {
    const parsed: unknown = parse(yamlText);
    const data =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    return { found: true, data, body };
  } catch (error) {
    return { found: true, data: {}, body, error: (error as Error).message };
  }
}

/** Render frontmatter + body. Keys keep the given order; `undefined` values are dropped. */
export function renderFrontmatter(data: Record<string, unknown>, body: string): string {
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
  const yamlText = stringify(clean, { lineWidth: 0 }).trimEnd();
  const trimmedBody = body.replace(/^\n+/, '');
  return `---\n${yamlText}\n---\n${trimmedBody.endsWith('\n') || trimmedBody === '' ? trimmedBody : `${trimmedBody}\n`}`;
}

/** A string field, trimmed, or undefined when absent or not a non-empty string. */
export function stringField(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
