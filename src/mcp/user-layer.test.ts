/**
 * The MCP tools over a chain with a user layer: every result that names a memory says which layer
 * it came from, and a memory the list shows can be read.
 */
import { mkdtempSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMemory } from '../memdir/index.js';
import { createEngram } from '../runtime/create-engram.js';
import { createEngramMcpServer } from './server.js';

let home: string;
let client: Client;
let userDir: string;
let projectDir: string;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'engram-mcp-layers-'));
  const env = { ENGRAM_HOME: join(home, '.engram'), ENGRAM_MANAGED_DIR: join(home, 'managed') };
  const repo = join(home, 'repo');
  await mkdir(repo);
  const engram = createEngram({ cwd: repo, env, homedir: home });
  userDir = engram.memoryChain.find((l) => l.layer === 'user')!.dir;
  projectDir = engram.memoryDir;
  await engram.saveMemory({
    type: 'user',
    name: 'answer in Chinese',
    description: 'The user wants every reply written in Chinese',
    body: 'Reply in Chinese.',
    scope: 'user',
  });
  await engram.saveMemory({
    type: 'project',
    name: 'release freeze',
    description: 'The repository has a release freeze until the audit ends',
    body: 'No releases.\n**Why:** the audit.\n**How to apply:** refuse release tasks.',
  });
  const server = createEngramMcpServer({ memoryDir: engram.memoryDir, engram });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});
afterEach(async () => {
  await client.close();
  await rm(home, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('MCP tools with a user layer', () => {
  it('lists, reads and audits the user layer, each result naming it', async () => {
    const listed = (await call('memory_list')).split('\n');
    // The heading counts what follows: the project's memories and the user layer's.
    expect(listed[0]).toMatch(/^\d+ memor(y|ies) in .*, and 1 in the user layer \(/);
    expect(listed[0]).toContain(userDir);
    expect(listed.find((l) => l.includes('release-freeze.md'))).not.toMatch(/layer/);
    expect(listed.find((l) => l.includes('answer-in-chinese.md'))).toContain(
      `(user layer, ${userDir})`,
    );
    const read = await call('memory_read', { file: 'answer-in-chinese' });
    expect(read.split('\n')[0]).toBe(`(from the user layer, ${userDir})`);
    expect(read).toContain('Reply in Chinese.');
    const audit = (await call('memory_audit')).split('\n');
    expect(audit).toHaveLength(2);
    expect(audit[1]).toBe(`No problems found: 1 memory, 1 index line in ${userDir} (user layer).`);
  });

  it('a name in neither layer is reported as missing from the project memory, by file or by name', async () => {
    for (const file of ['no-such-memory', 'no such memory', 'no-such-memory.md']) {
      const result = (await client.callTool({
        name: 'memory_read',
        arguments: { file },
      })) as CallToolResult;
      expect(result.isError, file).toBe(true);
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      expect(text, file).toMatch(/^No memory named /);
      expect(text, file).toContain(projectDir);
      expect(text, file).not.toContain(userDir);
    }
  });

  it('an empty file is asked for again, not looked up', async () => {
    expect(await call('memory_read', { file: '' })).toContain(
      'Pass the memory file (as memory_list shows it)',
    );
    expect(await call('memory_revoke', { file: '', reason: 'wrong' })).toContain(
      'Pass the memory file (as memory_list shows it)',
    );
    expect(await call('memory_revoke', { file: 'release-freeze.md', reason: '' })).toContain(
      'A revocation needs a reason',
    );
  });

  it('revokes a user-layer memory the list shows, in the user layer', async () => {
    const revoked = await call('memory_revoke', {
      file: 'answer in Chinese',
      reason: 'the user switched to English',
    });
    expect(revoked).toBe(
      `Revoked answer-in-chinese.md in the user layer (${userDir}). It stays on disk marked revoked, off the index, and is never recalled.`,
    );
    const doc = await readMemory(userDir, 'answer-in-chinese.md');
    expect(doc.header.status).toBe('revoked');
    expect(doc.header.frontmatter.reason).toBe('the user switched to English');
    expect(await call('memory_list')).not.toContain('answer-in-chinese.md');
  });

  it('gives each recalled memory its layer', async () => {
    const result = (await client.callTool({
      name: 'memory_recall',
      arguments: { query: 'which language should every reply be written in' },
    })) as CallToolResult;
    const summary = result.structuredContent as {
      selected: Array<{ file: string; layer: string }>;
    };
    expect(summary.selected.map((m) => [m.file, m.layer])).toEqual([
      ['answer-in-chinese.md', 'user'],
    ]);
  });
});
