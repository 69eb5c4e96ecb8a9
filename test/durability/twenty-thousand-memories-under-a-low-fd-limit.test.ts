import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');
const COUNT = 20_000;

let home: string;
let dir: string;

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  home = await mkdtemp(join(tmpdir(), 'engram-fd-'));
  dir = join(home, 'memory');
  await mkdir(join(dir, 'sub'), { recursive: true });
  const index: string[] = [];
  for (let i = 0; i < COUNT; i++) {
    const file = i % 10 === 0 ? `sub/m${i}.md` : `m${i}.md`;
    const topic =
      i === 4242 ? 'the payment gateway runs in sandbox mode in tests' : `routine fact number ${i}`;
    writeFileSync(
      join(dir, file),
      `---\nname: m${i}\ndescription: ${topic}\ntype: project\n---\n${topic}.\n**Why:** x\n**How to apply:** y\n`,
    );
    index.push(`- [m${i}](${file}) — ${topic}`);
  }
  writeFileSync(join(dir, 'MEMORY.md'), `${index.join('\n')}\n`);
}, 120_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** engram under `ulimit -n 256`, as the reproduction runs it. */
function underLowLimit(
  args: string[],
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn(
    'bash',
    ['-c', `ulimit -n 256; exec '${process.execPath}' '${MAIN}' ${quoted}`],
    {
      cwd: home,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        ENGRAM_HOME: join(home, '.engram'),
        ENGRAM_NO_DAEMON: '1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdin.end(stdin);
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })));
}

describe(`${COUNT} memories under ulimit -n 256`, () => {
  it('recall finds the one that matters', async () => {
    const run = await underLowLimit(['recall', 'payment gateway sandbox mode tests', '--dir', dir]);
    expect(run.stderr).not.toMatch(/EMFILE/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sandbox mode');
  }, 180_000);

  it('audit reads every header', async () => {
    const run = await underLowLimit(['audit', '--json', '--dir', dir]);
    expect(run.stderr).not.toMatch(/EMFILE/);
    const report = JSON.parse(run.stdout) as {
      memories: number;
      problems: Array<{ kind: string }>;
    };
    expect(report.memories).toBe(COUNT);
    expect(report.problems.filter((p) => p.kind === 'orphan')).toEqual([]);
  }, 180_000);

  it('the prompt hook answers', async () => {
    const input = JSON.stringify({
      session_id: 'fd-session',
      transcript_path: join(home, 'none.jsonl'),
      cwd: home,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'how do the payment gateway tests run in sandbox mode',
    });
    const run = await underLowLimit(
      ['hook', 'user-prompt-submit', '--dir', dir, '--no-model', '--budget-ms', '60000'],
      input,
    );
    expect(run.stderr).not.toMatch(/EMFILE/);
    expect(run.code).toBe(0);
    expect(() => JSON.parse(run.stdout)).not.toThrow();
  }, 180_000);
});
