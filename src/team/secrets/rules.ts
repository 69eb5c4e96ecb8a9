/**
 * High-confidence secret rules (after gitleaks' rules with distinctive prefixes). Generic
 * "keyword near a random string" rules are left out on purpose: this is a hard block, and a block
 * that fires on ordinary notes gets switched off.
 *
 * Every prefix is assembled from parts at run time so engram's own files never contain the
 * literal byte sequences that secret scanners look for.
 */
export interface SecretRule {
  id: string;
  /** Global regex; the `secret` group (else the whole match) is what entropy is measured on. */
  pattern: RegExp;
  /** A finding is dropped when the secret's Shannon entropy is at or below this. */
  entropy: number;
  /** Extra per-rule allowlist on the secret (e.g. AWS' documented `...EXAMPLE` keys). */
  allow?: RegExp;
}

const p = (...parts: string[]) => parts.join('');
/** Gitleaks' token end: a quote, backtick, whitespace, `;`, an escaped newline, or the end. */
const END = String.raw`(?=[\x60'"\s;]|\\[nr]|$)`;

function rule(id: string, source: string, entropy: number, flags = '', allow?: RegExp): SecretRule {
  return { id, pattern: new RegExp(source, `g${flags}`), entropy, ...(allow ? { allow } : {}) };
}

const GH = (letter: string) => p('gh', letter, '_');
const OPENAI_MARK = p('T3Blbk', 'FJ');
const ANT = p('sk', '-ant-');
const BEGIN = p('-----', 'BEGIN');

export const SECRET_RULES: readonly SecretRule[] = [
  rule('github-pat', String.raw`\b(?<secret>${GH('p')}[0-9a-zA-Z]{36})`, 3),
  rule('github-fine-grained-pat', String.raw`\b(?<secret>${p('github', '_pat_')}\w{82})`, 3),
  rule('github-oauth', String.raw`\b(?<secret>${GH('o')}[0-9a-zA-Z]{36})`, 3),
  rule('github-app-token', String.raw`\b(?<secret>(?:${GH('u')}|${GH('s')})[0-9a-zA-Z]{36})`, 3),
  rule('github-refresh-token', String.raw`\b(?<secret>${GH('r')}[0-9a-zA-Z]{36})`, 3),
  rule(
    'aws-access-token',
    String.raw`\b(?<secret>(?:A3T[A-Z0-9]|${p('AK', 'IA')}|${p('AS', 'IA')}|${p('AB', 'IA')}|${p('AC', 'CA')})[A-Z2-7]{16})\b`,
    3,
    '',
    /.+EXAMPLE$/,
  ),
  rule(
    'anthropic-api-key',
    String.raw`\b(?<secret>${ANT}${p('api', '03-')}[a-zA-Z0-9_\-]{93}AA)${END}`,
    3,
  ),
  rule(
    'anthropic-admin-api-key',
    String.raw`\b(?<secret>${ANT}${p('admin', '01-')}[a-zA-Z0-9_\-]{93}AA)${END}`,
    3,
  ),
  rule(
    'openai-api-key',
    String.raw`\b(?<secret>${p('s', 'k-')}(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})${OPENAI_MARK}(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|${p('s', 'k-')}[a-zA-Z0-9]{20}${OPENAI_MARK}[a-zA-Z0-9]{20})${END}`,
    3,
  ),
  rule('slack-bot-token', `(?<secret>${p('xo', 'xb-')}[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*)`, 3),
  rule(
    'slack-user-token',
    `(?<secret>${p('xo', 'x')}[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34})`,
    2,
  ),
  rule(
    'slack-app-token',
    String.raw`(?<secret>${p('xa', 'pp-')}\d-[A-Z0-9]+-\d+-[a-z0-9]+)`,
    2,
    'i',
  ),
  rule(
    'slack-webhook-url',
    `(?:https?://)?${p('hooks', '.slack', '.com')}/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9+/]{43,56})`,
    3,
  ),
  rule(
    'stripe-access-token',
    String.raw`\b(?<secret>(?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})${END}`,
    2,
  ),
  rule('gitlab-pat', String.raw`(?<secret>${p('gl', 'pat-')}[\w-]{20,300})`, 3),
  rule(
    'gitlab-token',
    String.raw`(?<secret>(?:${p('gl', 'ptt-')}[0-9a-f]{40}|${p('gl', 'rt-')}[0-9a-zA-Z_\-]{20}|${p('gl', 'dt-')}[0-9a-zA-Z_\-]{20}))`,
    3,
  ),
  rule('npm-access-token', String.raw`\b(?<secret>${p('np', 'm_')}[a-z0-9]{36})${END}`, 2, 'i'),
  rule(
    'pypi-upload-token',
    String.raw`(?<secret>${p('py', 'pi-', 'AgEIcHlwaS5vcmc')}[\w-]{50,1000})`,
    3,
  ),
  rule('gcp-api-key', String.raw`\b(?<secret>${p('AI', 'za')}[\w-]{35})${END}`, 4),
  rule(
    'private-key',
    String.raw`${BEGIN}[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?<secret>[\s\S-]{64,}?)-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`,
    3,
    'i',
  ),
  rule('huggingface-access-token', String.raw`\b(?<secret>${p('h', 'f_')}[a-zA-Z]{34})${END}`, 2),
];
