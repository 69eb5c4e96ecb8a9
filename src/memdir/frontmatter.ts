import { createRequire } from 'node:module';
import { FRONTMATTER_MAX_LINES } from './constants.js';

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;
/**
 * The YAML parser, loaded on first use: nearly every memory's frontmatter is plain `key: value`
 * lines that the header shortcut reads without it, and loading it cost a hook process ~40 ms.
 * Synchronous (`require`, yaml ships CommonJS too) so these functions stay synchronous.
 */
function loadYaml(): Yaml {
  yaml ??= createRequire(import.meta.url)('yaml') as Yaml;
  return yaml;
}

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
  const yamlLines = lines.slice(0, close).map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  const body = lines.slice(close + 1).join('\n');
  // Plain `key: value` lines read the same without the YAML parser (and without loading it).
  const simple = parseSimpleYaml(yamlLines, close);
  if (simple) return { found: true, data: simple, body };
  const yamlText = yamlLines.slice(1).join('\n');
  try {
    // Silent and without pretty errors: the YAML library would otherwise print (and put in its
    // messages) the offending line, and a frontmatter line may hold a secret.
    const doc = loadYaml().parseDocument(yamlText, { logLevel: 'silent', prettyErrors: false });
    const first = doc.errors[0];
    if (first) return { found: true, data: {}, body, error: yamlProblem(first, yamlText) };
    const parsed: unknown = doc.toJS();
    const data =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    return { found: true, data, body };
  } catch (error) {
    return { found: true, data: {}, body, error: yamlProblem(error, yamlText) };
  }
}

/**
 * A YAML problem named by its line in the file (the `---` is line 1) and the library's code, never
 * by the text of the line. Pure.
 */
export function yamlProblem(error: unknown, yamlText: string): string {
  const e = error as { code?: unknown; pos?: unknown };
  const code = typeof e?.code === 'string' ? e.code : 'YAML_ERROR';
  const at = Array.isArray(e?.pos) && typeof e.pos[0] === 'number' ? e.pos[0] : undefined;
  if (at === undefined) return `YAML error ${code}`;
  // The YAML text starts on the file's line 2, after the opening `---`.
  const line = yamlText.slice(0, at).split('\n').length + 1;
  return `YAML error ${code} at line ${line}`;
}

const KEY_VALUE = /^([A-Za-z_][A-Za-z0-9_-]*): +(\S.*)$/u;
// A plain scalar that YAML's core schema reads back as this exact string: starts with a letter
// (so never a number, null, bool-like symbol or indicator), no comment, no nested mapping.
const PLAIN = /^\p{L}[^#\t\r]*$/u;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n)$/i;

/** `key: value` lines with plain values only; undefined for anything YAML might read otherwise. */
export function parseSimpleYaml(
  lines: readonly string[],
  close: number,
): Record<string, string> | undefined {
  const data: Record<string, string> = {};
  for (let i = 1; i < close; i++) {
    const match = KEY_VALUE.exec(lines[i]!);
    if (!match) return undefined;
    const key = match[1]!;
    const value = match[2]!.trimEnd();
    if (Object.hasOwn(data, key) || !PLAIN.test(value) || RESERVED.test(value)) return undefined;
    if (value.includes(': ') || value.endsWith(':')) return undefined;
    data[key] = value;
  }
  return data;
}

/** Render frontmatter + body. Keys keep the given order; `undefined` values are dropped. */
export function renderFrontmatter(data: Record<string, unknown>, body: string): string {
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
  const yamlText = loadYaml().stringify(clean, { lineWidth: 0 }).trimEnd();
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
