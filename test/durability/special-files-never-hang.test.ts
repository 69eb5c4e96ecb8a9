import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');
/** Far above any deadline engram sets for these: only a hang gets here. */
const GUARD_MS = 60_000;

let home: string;
let memoryDir: string;
let project: string;
const special: Record<string, string> = {};

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  home = await mkdtemp(join(tmpdir(), 'engram-special-'));
  memoryDir = join(home, 'memory');
  project = join(home, 'project');
  await mkdir(memoryDir, { recursive: true });
  await mkdir(project, { recursive: true });
  special.fifo = join(home, 'fifo.jsonl');
  execFileSync('mkfifo', [special.fifo]);
  special.zero = '/dev/zero';
  special.dir = join(home, 'a-folder.jsonl');
  await mkdir(special.dir);
  special.sparse = join(home, 'sparse.jsonl');
  const handle = await open(special.sparse, 'w');
  await handle.truncate(1024 * 1024 * 1024); // 1 GB, no disk used
  await handle.close();
  // The same four as memory files.
  execFileSync('mkfifo', [join(memoryDir, 'x.md')]);
  await mkdir(join(memoryDir, 'folder.md'));
  const big = await open(join(memoryDir, 'big.md'), 'w');
  await big.truncate(1024 * 1024 * 1024);
  await big.close();
  await writeFile(
    join(memoryDir, 'ok.md'),
    '---\nname: ok\ndescription: the payment gateway runs in sandbox mode in tests\ntype: project\n---\nSandbox gateway in tests.\n**Why:** real charges.\n**How to apply:** always.\n',
  );
  await writeFile(join(memoryDir, 'MEMORY.md'), '- [ok](ok.md) — sandbox gateway\n');
  // And as includes of an instruction file.
  await writeFile(
    join(project, 'CLAUDE.md'),
    `# Project\n@${special.fifo}\n@/dev/zero\n@${special.dir}\n@${special.sparse}\nUse the sandbox gateway.\n`,
  );
}, 60_000);

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

function engram(
  args: string[],
  stdin = '',
): Promise<{ code: number | null; stdout: string; stderr: string; hung: boolean }> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: project,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      ENGRAM_HOME: join(home, '.engram'),
      ENGRAM_NO_DAEMON: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdin.end(stdin);
  let hung = false;
  const guard = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, GUARD_MS);
  return new Promise((done) =>
    child.once('close', (code) => {
      clearTimeout(guard);
      done({ code, stdout, stderr, hung });
    }),
  );
}

const hookInput = (event: string, transcript: string) =>
  JSON.stringify({
    session_id: 'special-session',
    transcript_path: transcript,
    cwd: project,
    hook_event_name: event,
    prompt: 'how do the payment gateway tests run',
    trigger: 'manual',
    stop_hook_active: false,
  });

describe('a FIFO, /dev/zero, a folder and a 1 GB sparse file never hang engram', () => {
  for (const kind of ['fifo', 'zero', 'dir', 'sparse']) {
    it(`as transcript_path (${kind}): every hook ends with valid JSON`, async () => {
      for (const event of ['user-prompt-submit', 'stop', 'pre-compact']) {
        const name =
          event === 'stop' ? 'Stop' : event === 'pre-compact' ? 'PreCompact' : 'UserPromptSubmit';
        const args = ['hook', event, '--dir', memoryDir, '--no-model'];
        if (event === 'stop') args.push('--wait');
        const run = await engram(args, hookInput(name, special[kind]!));
        expect(run.hung, `${event} on ${kind}`).toBe(false);
        expect(() => JSON.parse(run.stdout), `${event} on ${kind}: ${run.stderr}`).not.toThrow();
        if (run.code !== 0) expect(run.stderr).toMatch(/engram: .+/);
      }
    }, 240_000);
  }

  it('as memory files: show refuses each with a clear message; recall, list and audit go on', async () => {
    for (const file of ['x.md', 'folder.md', 'big.md']) {
      const run = await engram(['show', file, '--dir', memoryDir]);
      expect(run.hung, file).toBe(false);
      expect(run.code, file).not.toBe(0);
      expect(run.stderr, file).toMatch(/not a regular file|a folder|over|bytes|not a file/i);
    }
    const recall = await engram(['recall', 'payment gateway tests', '--dir', memoryDir]);
    expect(recall.hung).toBe(false);
    expect(recall.stdout).toContain('Sandbox gateway in tests.');
    const audit = await engram(['audit', '--json', '--dir', memoryDir]);
    expect(audit.hung).toBe(false);
    const kinds = (JSON.parse(audit.stdout) as { problems: Array<{ kind: string; file: string }> })
      .problems;
    expect(kinds).toContainEqual(
      expect.objectContaining({ kind: 'not_regular_file', file: 'x.md' }),
    );
  }, 240_000);

  it('as includes: the instruction files load without them, each skipped with a reason', async () => {
    const run = await engram(['instructions', '--cwd', project]);
    expect(run.hung).toBe(false);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Use the sandbox gateway.');
  }, 120_000);

  it('the MCP server answers the next call after reading each of them, several times over', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp', '--dir', memoryDir],
      cwd: home,
      env: {
        HOME: home,
        ENGRAM_HOME: join(home, '.engram'),
        PATH: process.env.PATH ?? '',
        ENGRAM_NO_DAEMON: '1',
      },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'special-files', version: '1.0.0' });
    await client.connect(transport);
    try {
      // More FIFO reads than libuv has threads: the old server wedged after four.
      for (let round = 0; round < 3; round++) {
        for (const file of ['x.md', 'x.md', 'folder.md', 'big.md']) {
          const r = (await client.callTool({
            name: 'memory_read',
            arguments: { file },
          })) as CallToolResult;
          expect(r.isError, file).toBe(true);
        }
      }
      const next = (await client.callTool({
        name: 'memory_read',
        arguments: { file: 'ok.md' },
      })) as CallToolResult;
      expect(next.isError).toBeFalsy();
      expect(JSON.stringify(next.content)).toContain('Sandbox gateway in tests.');
    } finally {
      await client.close();
    }
  }, 120_000);
});
