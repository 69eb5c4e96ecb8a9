import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from 'engram/cli';
import { runCli } from 'engram/cli';
import { describe, expect, it } from 'vitest';

/**
 * A preference stated, reversed, reversed back: twenty flips, each in a new session (a recall
 * with no history), each through `engram add` and `engram revoke --superseded-by`. After every
 * step recall must return the one active memory and never a revoked one, and the audit stays
 * clean. The shape of a full-reversal stream: "last write wins" alone would leave both.
 */

function io(cwd: string): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    cwd,
    homedir: cwd,
    env: { ENGRAM_HOME: join(cwd, '.engram'), ENGRAM_MANAGED_DIR: join(cwd, 'managed') },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stdinIsTty: true,
    readStdin: async () => '',
    out,
    err,
  };
}

async function engram(env: ReturnType<typeof io>, args: string[]) {
  env.out.length = 0;
  env.err.length = 0;
  const code = await runCli(args, env);
  return { code, stdout: env.out.join(''), stderr: env.err.join('') };
}

const STANCES = [
  { word: 'tabs', rule: 'Indent code with tabs, never spaces.' },
  { word: 'spaces', rule: 'Indent code with two spaces, never tabs.' },
];

describe('a preference reversed twenty times', () => {
  it('recalls only the active memory after every flip, and the audit stays clean', async () => {
    const home = mkdtempSync(join(tmpdir(), 'engram-reversal-'));
    const dir = join(home, 'memory');
    const env = io(home);
    const common = ['--dir', dir];
    let active: string | undefined;
    let clean = 0;
    const revoked: string[] = [];
    for (let flip = 0; flip <= 20; flip++) {
      const stance = STANCES[flip % 2]!;
      const file = `indentation-${flip}.md`;
      const add = await engram(env, [
        'add',
        ...common,
        '--type',
        'feedback',
        '--name',
        `Indentation preference ${flip}`,
        '--description',
        `The user's indentation preference: ${stance.word} for indenting code`,
        '--file',
        file,
        '--body',
        `${stance.rule}\n**Why:** the user said so in session ${flip}.\n**How to apply:** every file.`,
      ]);
      expect(add.code, add.stderr).toBe(0);
      if (active !== undefined) {
        const r = await engram(env, [
          'revoke',
          active,
          ...common,
          '--reason',
          `the user reversed it in session ${flip}`,
          '--superseded-by',
          file,
        ]);
        expect(r.code, r.stderr).toBe(0);
        revoked.push(active);
      }
      active = file;
      if (flip === 0) continue; // the statement itself; the twenty reversals follow
      const recalled = await engram(env, [
        'recall',
        'should I indent this code with tabs or spaces?',
        ...common,
        '--model',
        'offline',
        '--json',
        '--no-verify',
      ]);
      const files = (JSON.parse(recalled.stdout).selected as { file: string }[]).map((m) => m.file);
      const audit = await engram(env, ['audit', ...common, '--json']);
      if (
        files.length === 1 &&
        files[0] === active &&
        audit.code === 0 &&
        JSON.parse(audit.stdout).ok === true
      ) {
        clean++;
      }
      expect(files, `flip ${flip}`).toEqual([active]);
    }
    expect(clean).toBe(20);
    expect(revoked).toHaveLength(20);
    const index = readFileSync(join(dir, 'MEMORY.md'), 'utf8');
    expect(index.trim().split('\n')).toEqual([expect.stringContaining('(indentation-20.md)')]);
    const listed = await engram(env, ['list', ...common, '--all', '--json']);
    const statuses = (JSON.parse(listed.stdout).memories as { file: string; status: string }[])
      .filter((m) => m.status === 'revoked')
      .map((m) => m.file)
      .sort();
    expect(statuses).toEqual([...revoked].sort());
  }, 120_000);
});
