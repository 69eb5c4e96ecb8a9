import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRET_RULES } from './rules.js';
import { scanForSecrets, shannonEntropy } from './scan.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random = (n: number, chars = ALNUM) =>
  Array.from({ length: n }, () => chars[randomInt(chars.length)]).join('');
const j = (...parts: string[]) => parts.join('');

/** One generated token per rule family: prefix + the random part (replaced in the variants). */
const FAMILIES: Array<{
  rule: string;
  prefix: string;
  body: (n?: number) => string;
  n: number;
  suffix?: string;
}> = [
  { rule: 'github-pat', prefix: j('gh', 'p_'), n: 36, body: (n = 36) => random(n) },
  {
    rule: 'github-fine-grained-pat',
    prefix: j('github', '_pat_'),
    n: 82,
    body: (n = 82) => random(n),
  },
  {
    rule: 'aws-access-token',
    prefix: j('AK', 'IA'),
    n: 16,
    body: (n = 16) => random(n, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'),
  },
  {
    rule: 'anthropic-api-key',
    prefix: j('sk-', 'ant-', 'api03-'),
    n: 93,
    suffix: 'AA',
    body: (n = 93) => random(n),
  },
  {
    rule: 'openai-api-key',
    prefix: j('sk-', 'proj-'),
    n: 74,
    suffix: j('T3Blbk', 'FJ') + random(74),
    body: (n = 74) => random(n),
  },
  {
    rule: 'slack-bot-token',
    prefix: j('xo', 'xb-', '1234567890', '-', '9876543210', '-'),
    n: 24,
    body: (n = 24) => random(n),
  },
  { rule: 'stripe-access-token', prefix: j('sk', '_live_'), n: 24, body: (n = 24) => random(n) },
  { rule: 'gitlab-pat', prefix: j('gl', 'pat-'), n: 20, body: (n = 20) => random(n) },
  {
    rule: 'npm-access-token',
    prefix: j('np', 'm_'),
    n: 36,
    body: (n = 36) => random(n, 'abcdefghijklmnopqrstuvwxyz0123456789'),
  },
  {
    rule: 'pypi-upload-token',
    prefix: j('py', 'pi-', 'AgEIcHlwaS5vcmc'),
    n: 60,
    body: (n = 60) => random(n),
  },
  { rule: 'gcp-api-key', prefix: j('AI', 'za'), n: 35, body: (n = 35) => random(n) },
  {
    rule: 'huggingface-access-token',
    prefix: j('h', 'f_'),
    n: 34,
    body: (n = 34) => random(n, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'),
  },
];

function privateKey(body: string): string {
  return `${j('-----', 'BEGIN RSA PRIVATE KEY-----')}\n${body}\n${j('-----', 'END RSA PRIVATE KEY-----')}`;
}
const keyBody = () => Array.from({ length: 4 }, () => random(64, `${ALNUM}+/`)).join('\n');

describe('secret scanner', () => {
  for (const f of FAMILIES) {
    it(`finds a generated ${f.rule} and lets its placeholders pass`, () => {
      const token = `${f.prefix}${f.body()}${f.suffix ?? ''}`;
      const note = `# deploy notes\nuse this one:\ntoken = "${token}"\nthanks`;
      const findings = scanForSecrets(note);
      expect(findings.map((x) => x.rule)).toContain(f.rule);
      const hit = findings.find((x) => x.rule === f.rule)!;
      expect(hit.line).toBe(3);
      expect(hit.redacted).not.toContain(token.slice(8));

      const xs = `${f.prefix}${'x'.repeat(f.n)}${f.suffix ?? ''}`;
      expect(scanForSecrets(`token = "${xs}"`), xs).toEqual([]);
      const example = `${f.prefix}${f.body(f.n - 7)}EXAMPLE`;
      expect(scanForSecrets(`token = "${example}"`), example).toEqual([]);
    });
  }

  it('finds a private key block and lets a placeholder block pass', () => {
    expect(scanForSecrets(`key:\n${privateKey(keyBody())}`).map((f) => f.rule)).toEqual([
      'private-key',
    ]);
    expect(scanForSecrets(privateKey('x'.repeat(64)))).toEqual([]);
    expect(scanForSecrets(privateKey(`${keyBody()}EXAMPLE`))).toEqual([]);
  });

  it('ignores ordinary notes, including random-looking words without a known prefix', () => {
    const note =
      'We use pnpm. The build id was 8f3a9c21d0e4b7f6a5c3 and the hash is abcdef0123456789.';
    expect(scanForSecrets(note)).toEqual([]);
  });

  it('measures entropy in bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });

  it('keeps the literal prefixes out of its own source', () => {
    const source = readFileSync(join(import.meta.dirname, 'rules.ts'), 'utf8');
    for (const literal of [
      j('gh', 'p_'),
      j('AK', 'IA'),
      j('sk-', 'ant'),
      j('xo', 'xb-'),
      j('gl', 'pat-'),
      j('AI', 'za'),
      j('T3Blbk', 'FJ'),
      j('-----', 'BEGIN'),
    ]) {
      expect(source).not.toContain(literal);
    }
    expect(SECRET_RULES.length).toBeGreaterThanOrEqual(15);
  });
});
