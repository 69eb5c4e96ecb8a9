import { SECRET_RULES, type SecretRule } from './rules.js';

export interface SecretFinding {
  rule: string;
  /** 1-based line of the match's start. */
  line: number;
  /** The match with all but its first characters hidden. */
  redacted: string;
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const n = [...text].length;
  for (const count of counts.values()) {
    const f = count / n;
    bits -= f * Math.log2(f);
  }
  return bits;
}

/**
 * Placeholders people write in docs: `xxxx` runs, a documented `...EXAMPLE` ending, one repeated
 * character, or a template variable. These pass, like gitleaks' global allowlist.
 */
function isPlaceholder(secret: string): boolean {
  const s = secret.trim();
  if (/x{4,}/i.test(s)) return true;
  if (/EXAMPLE$/.test(s.replace(/[\s-]+$/, ''))) return true;
  if (/^(.)\1*$/s.test(s)) return true;
  return /\$\{?[A-Z_]+\}?|\{\{.*\}\}|%[A-Z_]+%/.test(s);
}

export function redact(match: string): string {
  const keep = Math.min(6, Math.max(2, Math.floor(match.length / 6)));
  return `${match.slice(0, keep)}… (${match.length} chars)`;
}

/** Every high-confidence secret in `text`, in order of position. Pure. */
export function scanForSecrets(
  text: string,
  rules: readonly SecretRule[] = SECRET_RULES,
): SecretFinding[] {
  const found: Array<SecretFinding & { index: number }> = [];
  for (const rule of rules) {
    rule.pattern.lastIndex = 0;
    for (const m of text.matchAll(rule.pattern)) {
      const secret = m.groups?.secret ?? m[0];
      if (isPlaceholder(secret)) continue;
      if (rule.allow?.test(secret)) continue;
      if (shannonEntropy(secret) <= rule.entropy) continue;
      const index = m.index ?? 0;
      found.push({
        rule: rule.id,
        line: lineOf(text, index),
        redacted: redact(m[0].trim()),
        index,
      });
    }
  }
  found.sort((a, b) => a.index - b.index);
  return found.map(({ index: _index, ...finding }) => finding);
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
