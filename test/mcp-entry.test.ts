import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const RECORDER = join(ROOT, 'test/fixtures/record-imports.mjs');
/** Packages a long-running MCP server has no use for: the other commands' (CLI, web inspector, doctor). */
const NOT_IN_THE_SERVER = ['commander', 'hono', '@hono/node-server', 'marked'];

const root = mkdtempSync(join(tmpdir(), 'engram-mcp-entry-'));
const dir = join(root, 'memory');
mkdirSync(dir);
writeFileSync(
  join(dir, 'pods.md'),
  '---\nname: pods\ndescription: kubelet evicts pods when node memory runs low\ntype: project\n---\nRaise the eviction threshold.\n**Why:** pods were evicted during deploys.\n**How to apply:** staging nodes.\n',
);
utimesSync(join(dir, 'pods.md'), Date.now() / 1000 - 3600, Date.now() / 1000 - 3600);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** One server session: what it offers, one recall, one edit seen, and the packages it loaded. */
async function session(args: string[], log: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', RECORDER, MAIN, ...args],
    cwd: root,
    env: {
      HOME: root,
      ENGRAM_HOME: join(root, '.engram'),
      PATH: process.env.PATH ?? '',
      ENGRAM_TEST_IMPORT_LOG: log,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'mcp-entry-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => [t.name, t.inputSchema]);
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map(
      (t) => t.uriTemplate,
    );
    const query = 'why does the kubelet keep evicting pods';
    const recall = async () => {
      const r = (await client.callTool({
        name: 'memory_recall',
        arguments: { query },
      })) as CallToolResult;
      return (r.content[0] as { text: string }).text;
    };
    const before = await recall();
    // An edit made by another editor between two calls is seen by the next one.
    const path = join(dir, 'pods.md');
    const original = readFileSync(path, 'utf8');
    writeFileSync(path, original.replace('Raise the eviction threshold.', 'Lower the pod limit.'));
    const after = await recall();
    writeFileSync(path, original);
    utimesSync(path, Date.now() / 1000 - 3600, Date.now() / 1000 - 3600);
    return { tools, resources, templates, before, after, stderr };
  } finally {
    await client.close();
  }
}

function packagesIn(log: string): Set<string> {
  const names = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (match) names.add(match[1]!);
  }
  return names;
}

describe('the lean MCP entry', () => {
  it('serves the same tools, resources and answers as the full CLI without loading the other commands', async () => {
    const leanLog = join(root, 'lean.log');
    const lean = await session(['mcp', '--dir', dir, '--no-model'], leanLog);
    // An option before the command goes through commander: the full CLI's `engram mcp`.
    const fullLog = join(root, 'full.log');
    const full = await session(['--dir', dir, 'mcp', '--no-model'], fullLog);

    const leanPackages = packagesIn(leanLog);
    for (const name of NOT_IN_THE_SERVER) expect(leanPackages.has(name), name).toBe(false);
    expect(leanPackages.has('@modelcontextprotocol/sdk')).toBe(true);
    // The recorder works: the full CLI loads commander.
    expect(packagesIn(fullLog).has('commander')).toBe(true);

    expect(lean.tools.map(([name]) => name)).toEqual([
      'memory_recall',
      'memory_save',
      'memory_list',
      'memory_read',
      'memory_revoke',
      'memory_audit',
    ]);
    expect(lean.tools).toEqual(full.tools);
    expect(lean.resources).toEqual(['engram://index', 'engram://memory/pods.md']);
    expect(lean.resources).toEqual(full.resources);
    expect(lean.templates).toEqual(full.templates);
    expect(lean.before).toContain('Raise the eviction threshold.');
    expect(lean.before).toBe(full.before);
    expect(lean.after).toContain('Lower the pod limit.');
    expect(lean.after).not.toContain('Raise the eviction threshold.');
    expect(lean.after).toBe(full.after);
    expect(lean.stderr).toMatch(/engram mcp: serving .*memory \(recall: offline ranker\)/);
    expect(lean.stderr).toBe(full.stderr);
  });

  it('reports a bad option value the way the full CLI does', async () => {
    const { spawnSync } = await import('node:child_process');
    const env = { HOME: root, ENGRAM_HOME: join(root, '.engram'), PATH: process.env.PATH ?? '' };
    const lean = spawnSync(process.execPath, [MAIN, 'mcp', '--dir', ' '], { env, input: '' });
    const full = spawnSync(process.execPath, [MAIN, '--dir', ' ', 'mcp'], { env, input: '' });
    expect(lean.status).toBe(2);
    expect(lean.status).toBe(full.status);
    expect(lean.stderr.toString()).toMatch(/--dir needs a directory path/);
    expect(lean.stderr.toString()).toBe(full.stderr.toString());
  });
});
