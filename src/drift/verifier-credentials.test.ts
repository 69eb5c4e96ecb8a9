/**
 * The claim verifier reads project files (line counts, package.json, a walk's text search, git
 * grep). Credential files are under the one deny-list every door uses (src/confine/policy.ts): a
 * memory citing them must not learn their length, and an identifier found only inside them must
 * not be confirmed (a `holds` would tell a memory's author that a secret string is in `.env`).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureProject, memoryText } from './__fixtures__/project.js';
import { claimCachePath, memoryIdentity } from './claim-cache.js';
import { projectProbe } from './project-probe.js';
import { createClaimVerifier } from './verifier.js';

const CITES_SECRETS = memoryText(
  'deploy secrets',
  'where the deploy credentials live',
  [
    'The token is `SECRET_TOKEN_QQ7` and the key marker `DEPLOY_KEY_ZZ9`.',
    'The certificate is `keys/server.pem:9`; the env file is `.env`.',
    'The real code: `src/app.ts:1` calls `startServer()`.',
  ].join('\n'),
);

function plantSecrets(root: string): void {
  // Untracked and not ignored: `git grep --untracked` and `git ls-files --others` see them.
  writeFileSync(join(root, '.env'), 'A=1\nSECRET_TOKEN_QQ7=sk-live-abc123\nC=3\n');
  mkdirSync(join(root, 'keys'), { recursive: true });
  writeFileSync(join(root, 'keys/server.pem'), 'line one\nline two\n');
  writeFileSync(join(root, 'keys/deploy.pem'), 'DEPLOY_KEY_ZZ9=1\n');
}

async function statuses(root: string) {
  const memoryDir = mkdtempSync(join(tmpdir(), 'engram-mem-'));
  const verifier = createClaimVerifier({ projectDir: root, memoryDir });
  const v = await verifier.verifyMemories([{ file: 'secrets.md', content: CITES_SECRETS }]);
  const checks = v.get('secrets.md')!.checks;
  return {
    byText: Object.fromEntries(checks.map((c) => [c.claim.text, c.status])),
    details: checks.map((c) => c.detail ?? '').join('\n'),
  };
}

describe('claim checks never read credential files', () => {
  for (const kind of ['git', 'walk'] as const) {
    it(`in a ${kind} project: no line count of a key file, no confirmation of its text`, async () => {
      const root = fixtureProject(
        { 'src/app.ts': 'export function startServer() {}\n' },
        { git: kind === 'git' },
      );
      plantSecrets(root);
      const { byText, details } = await statuses(root);
      // Positive controls: the project's own files are still checked.
      expect(byText['src/app.ts:1']).toBe('holds');
      expect(byText['startServer()']).toBe('holds');
      // The key file's length is never measured, so never reported.
      expect(byText['keys/server.pem:9']).toBe('unchecked');
      expect(details).not.toMatch(/has \d+ lines/);
      // Strings that occur only in credential files are not confirmed by them.
      expect(byText.SECRET_TOKEN_QQ7).not.toBe('holds');
      expect(byText.DEPLOY_KEY_ZZ9).not.toBe('holds');
      // Whether a credential file exists is not the verifier's to tell either.
      expect(byText['.env']).toBe('unchecked');
    });
  }

  it('does not follow a project link out of the project to count lines', async () => {
    const root = fixtureProject({ 'src/app.ts': 'export function startServer() {}\n' });
    const outside = mkdtempSync(join(tmpdir(), 'engram-outside-'));
    writeFileSync(join(outside, 'notes.ts'), 'a\nb\nc\n');
    symlinkSync(join(outside, 'notes.ts'), join(root, 'src/notes.ts'));
    const memoryDir = mkdtempSync(join(tmpdir(), 'engram-mem-'));
    const memory = memoryText('notes', 'notes file', 'See `src/notes.ts:40` and `src/app.ts:1`.');
    const v = await createClaimVerifier({ projectDir: root, memoryDir }).verifyMemories([
      { file: 'notes.md', content: memory },
    ]);
    const checks = v.get('notes.md')!.checks;
    expect(checks.find((c) => c.claim.text === 'src/notes.ts:40')).toMatchObject({
      status: 'unchecked',
    });
    expect(checks.find((c) => c.claim.text === 'src/app.ts:1')).toMatchObject({ status: 'holds' });
  });

  it('does not reuse a verdict cached before credential files were excluded', async () => {
    const root = fixtureProject({ 'src/app.ts': 'export function startServer() {}\n' });
    plantSecrets(root);
    const memoryDir = mkdtempSync(join(tmpdir(), 'engram-mem-'));
    const probe = projectProbe(root, { memoryDir });
    const state = await probe.state();
    // What an older engram stored: the secret's name confirmed by `.env`.
    const checks = [
      {
        claim: { kind: 'identifier', text: 'SECRET_TOKEN_QQ7', identifier: 'SECRET_TOKEN_QQ7' },
        status: 'holds',
      },
    ];
    mkdirSync(join(memoryDir, '.engram'), { recursive: true });
    writeFileSync(
      claimCachePath(memoryDir),
      JSON.stringify({
        version: 1,
        entries: {
          'secrets.md': {
            identity: memoryIdentity('secrets.md', CITES_SECRETS),
            state,
            quickState: await probe.quickState(),
            checkedAt: new Date(0).toISOString(),
            checks,
          },
        },
      }),
    );
    const missed: string[][] = [];
    const cached = await createClaimVerifier({
      projectDir: root,
      memoryDir,
      mode: 'cache-only',
      onMisses: (files) => missed.push(files),
    }).verify([{ file: 'secrets.md', content: CITES_SECRETS }]);
    expect(cached.get('secrets.md')).toBeUndefined();
    expect(missed).toEqual([['secrets.md']]);
  });
});
