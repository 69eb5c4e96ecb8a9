import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditMemoryDir, parseIndexEntries } from '../../src/memdir/index.js';
import { createMemoryToolHandlers } from '../../src/memory-tool/index.js';
import { EngramError } from '../../src/util/errors.js';

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
});

let home: string;
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const isLockTimeout = (error: unknown) =>
  error instanceof EngramError && error.code === 'lock_timeout';

const body = (i: number) => `Fact ${i}.\n**Why:** load test\n**How to apply:** always`;

/** One `engram add` child; killed with SIGKILL after `killAfterMs` when given. */
function cliSave(dir: string, file: string, killAfterMs?: number): Promise<boolean> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      MAIN,
      'add',
      '--dir',
      dir,
      '--type',
      'project',
      '--name',
      file,
      '--description',
      `about ${file}`,
      '--body',
      body(1),
      '--file',
      file,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: home, ENGRAM_HOME: join(home, '.engram') },
    },
  );
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  const timer =
    killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((done) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      done(code === 0 && out.startsWith('Saved'));
    }),
  );
}

describe('concurrent writers from every door', () => {
  it('CLI processes (some killed), MCP saves, memory-tool creates and str_replace on MEMORY.md: nothing reported saved is lost', async () => {
    home = await mkdtemp(join(tmpdir(), 'engram-load-'));
    const dir = join(home, 'memory');
    const succeeded = new Set<string>();

    // The MCP server: one process, many saves in flight at once.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp', '--dir', dir],
      cwd: home,
      env: { HOME: home, ENGRAM_HOME: join(home, '.engram'), PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'load-test', version: '1.0.0' });
    await client.connect(transport);
    const tool = createMemoryToolHandlers({ memoryDir: dir });
    // A line that str_replace rewrites again and again while the others append theirs.
    await tool.create({
      command: 'create',
      path: '/memories/MEMORY.md',
      file_text: '<!-- edits: 0 -->\n',
    });

    const cliLane = async (lane: number) => {
      for (let i = 0; i < 6; i++) {
        const file = `cli-${lane}-${i}.md`;
        const kill = i % 3 === 2 ? 60 + Math.floor(Math.random() * 250) : undefined;
        if (await cliSave(dir, file, kill)) succeeded.add(file);
      }
    };
    const mcpSaves = Array.from({ length: 30 }, async (_, i) => {
      const file = `mcp-${i}.md`;
      const r = (await client.callTool({
        name: 'memory_save',
        arguments: {
          type: 'project',
          name: `mcp ${i}`,
          description: `mcp fact ${i}`,
          body: body(i),
          file,
        },
      })) as CallToolResult;
      if (!r.isError) succeeded.add(file);
    });
    const toolCreates = Array.from({ length: 30 }, async (_, i) => {
      const file = `tool-${i}.md`;
      // A lock timeout on a crowded machine is a reported failure (nothing written), not a loss.
      const saved = await tool
        .create({
          command: 'create',
          path: `/memories/${file}`,
          file_text: `---\nname: tool ${i}\ndescription: tool fact ${i}\ntype: project\n---\n${body(i)}\n`,
        })
        .then(
          () => true,
          (error: unknown) => {
            if (isLockTimeout(error)) return false;
            throw error;
          },
        );
      if (saved) succeeded.add(file);
    });
    const edits = (async () => {
      for (let n = 0; n < 20; n++) {
        // An edit refused with a lock timeout changed nothing; a client tries it again.
        for (;;) {
          const done = await tool
            .str_replace({
              command: 'str_replace',
              path: '/memories/MEMORY.md',
              old_str: `<!-- edits: ${n} -->`,
              new_str: `<!-- edits: ${n + 1} -->`,
            })
            .then(
              () => true,
              (error: unknown) => {
                if (isLockTimeout(error)) return false;
                throw error;
              },
            );
          if (done) break;
        }
      }
    })();
    await Promise.all([cliLane(0), cliLane(1), cliLane(2), ...mcpSaves, ...toolCreates, edits]);
    await client.close();

    const index = await readFile(join(dir, 'MEMORY.md'), 'utf8');
    expect(index).toContain('<!-- edits: 20 -->');
    const lines = parseIndexEntries(index).map((e) => e.file);
    const lost = [...succeeded].filter(
      (f) => !existsSync(join(dir, f)) || lines.filter((l) => l === f).length !== 1,
    );
    expect(lost).toEqual([]);
    // The run did real work through every door. A save refused with a lock timeout on a crowded
    // machine is a reported failure, not a loss, so the count is a floor, not all 72 unkilled saves.
    for (const door of ['cli-', 'mcp-', 'tool-']) {
      expect([...succeeded].filter((f) => f.startsWith(door)).length).toBeGreaterThan(0);
    }
    expect(succeeded.size).toBeGreaterThanOrEqual(36);
    // Whatever a killed writer left is named by the audit: no orphan goes unreported.
    const audit = await auditMemoryDir(dir);
    const indexed = new Set(lines);
    const files = (await import('node:fs'))
      .readdirSync(dir)
      .filter((f) => f.endsWith('.md') && f !== 'MEMORY.md');
    for (const f of files.filter((f) => !indexed.has(f))) {
      expect(
        audit.problems.some((p) => p.file === f && p.kind === 'orphan'),
        f,
      ).toBe(true);
    }
    expect(audit.problems.filter((p) => p.kind === 'duplicate_index_line')).toEqual([]);
  }, 180_000);
});
