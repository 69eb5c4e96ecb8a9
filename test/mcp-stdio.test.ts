import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The real binary, as an MCP client launches it: `npm run build` must have produced it.
const MAIN = resolve(import.meta.dirname, '../dist/cli/main.js');

describe('engram mcp over a real stdio child process', () => {
  let home: string;
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
    home = await mkdtemp(join(tmpdir(), 'engram-mcp-stdio-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp', '--dir', join(home, 'memory')],
      cwd: home,
      env: { HOME: home, ENGRAM_HOME: join(home, '.engram'), PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    await rm(home, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  it('lists tools, saves, recalls and revokes', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('memory_recall');
    expect(tools).toHaveLength(6);

    const saved = await call('memory_save', {
      type: 'feedback',
      name: 'Release notes in French',
      description: 'release notes for the Quebec client are written in French',
      body: 'Write release notes in French.\n**Why:** the Quebec client requires it by contract.\n**How to apply:** every release note.',
    });
    expect(saved.isError).toBeFalsy();

    const recalled = await call('memory_recall', {
      query: 'draft the release notes for the client',
    });
    expect(text(recalled)).toContain('Write release notes in French.');

    const revoked = await call('memory_revoke', {
      file: 'release-notes-in-french.md',
      reason: 'contract changed to English',
    });
    expect(text(revoked)).toMatch(/^Revoked release-notes-in-french\.md/);
    const after = await call('memory_recall', { query: 'draft the release notes for the client' });
    expect(text(after)).toBe('No memory is relevant to this request.');
    // Human-facing lines went to stderr; stdout carried only protocol frames (or the client would have failed).
    expect(stderr).toMatch(/engram mcp: serving .*memory \(recall: offline ranker\)/);
  });
});
