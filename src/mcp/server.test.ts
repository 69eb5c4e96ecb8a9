import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseIndexEntries, readMemory } from '../memdir/index.js';
import { TOOL_DESCRIPTIONS } from './prompts.js';
import { createEngramMcpServer, INDEX_RESOURCE_URI } from './server.js';

let dir: string;
let client: Client;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-mcp-'));
  const server = createEngramMcpServer({
    memoryDir: dir,
    now: () => new Date('2026-03-01T00:00:00Z'),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
});
afterEach(async () => {
  await client.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

const CORRECTION = {
  type: 'feedback',
  name: 'Integration tests hit a real database',
  description: 'integration tests must use the real postgres database, never mocks',
  body: 'Integration tests use the real database.\n**Why:** mocked tests passed while the prod migration failed.\n**How to apply:** any test under test/integration.',
};

describe('engram MCP server (in-memory linked transport)', () => {
  it('lists the six tools with their descriptions and the server instructions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'memory_audit',
      'memory_list',
      'memory_read',
      'memory_recall',
      'memory_revoke',
      'memory_save',
    ]);
    const save = tools.find((t) => t.name === 'memory_save')!;
    expect(save.description).toBe(TOOL_DESCRIPTIONS.memory_save);
    expect(save.inputSchema.required).toEqual(['type', 'name', 'description', 'body']);
    expect(client.getInstructions()).toMatch(/memory_recall/);
  });

  it('saves with the two-step save, recalls, reads, revokes and audits', async () => {
    const saved = await call('memory_save', CORRECTION);
    expect(saved.isError).toBeFalsy();
    expect(text(saved)).toMatch(
      /^Saved integration-tests-hit-a-real-database\.md and its index line:/,
    );
    const index = await readFile(join(dir, 'MEMORY.md'), 'utf8');
    expect(parseIndexEntries(index).map((e) => e.file)).toEqual([
      'integration-tests-hit-a-real-database.md',
    ]);

    const recalled = await call('memory_recall', {
      query: 'should the integration tests mock the database?',
    });
    expect(recalled.isError).toBeFalsy();
    expect(text(recalled)).toContain('Integration tests use the real database.');
    const shape = JSON.parse((recalled.content[1] as { text: string }).text);
    expect(shape.selected.map((m: { file: string }) => m.file)).toEqual([
      'integration-tests-hit-a-real-database.md',
    ]);
    expect(shape.shape.selector).toBe('offline');
    expect(recalled.structuredContent).toEqual(shape);
    // A client that reads only structuredContent (Claude Code does) still gets the memory body.
    expect((recalled.structuredContent as { text: string }).text).toContain(
      'Integration tests use the real database.',
    );

    const unrelated = await call('memory_recall', { query: 'rename the button colour palette' });
    expect(text(unrelated)).toBe('No memory is relevant to this request.');
    expect(unrelated.structuredContent).toMatchObject({
      text: 'No memory is relevant to this request.',
      selected: [],
    });

    const list = await call('memory_list');
    expect(text(list)).toMatch(
      /^1 memory in .*\n- \[feedback\] integration-tests-hit-a-real-database\.md/,
    );
    const read = await call('memory_read', { file: 'integration-tests-hit-a-real-database.md' });
    expect(text(read)).toContain('**Why:** mocked tests passed');

    const revoked = await call('memory_revoke', {
      file: 'integration-tests-hit-a-real-database.md',
      reason: 'the team moved integration tests to an in-memory engine',
    });
    expect(text(revoked)).toMatch(/^Revoked integration-tests-hit-a-real-database\.md\./);
    const doc = await readMemory(dir, 'integration-tests-hit-a-real-database.md');
    expect(doc.header.status).toBe('revoked');
    const after = await call('memory_recall', {
      query: 'should the integration tests mock the database?',
    });
    expect(text(after)).toBe('No memory is relevant to this request.');
    expect(text(await call('memory_list'))).toMatch(/^0 memories \(1 revoked not shown\)/);
    expect(text(await call('memory_audit'))).toMatch(/^No problems found: 1 memory, 0 index lines/);
  });

  it('refuses a save without description or Why as an isError result the model can act on', async () => {
    const noDescription = await call('memory_save', { ...CORRECTION, description: ' ' });
    expect(noDescription.isError).toBe(true);
    expect(text(noDescription)).toMatch(/^Not saved\. A memory needs a description/);
    // Left out entirely (the SDK validates the input first): the same actionable refusal.
    const { description: _left, ...withoutDescription } = CORRECTION;
    const omitted = await call('memory_save', withoutDescription);
    expect(omitted.isError).toBe(true);
    expect(text(omitted)).toContain('Not saved. A memory needs a description');
    const { body: _body, ...withoutBody } = CORRECTION;
    expect(text(await call('memory_save', withoutBody))).toContain(
      'Not saved. A memory needs a body',
    );
    const noWhy = await call('memory_save', { ...CORRECTION, body: 'Use the real database.' });
    expect(noWhy.isError).toBe(true);
    expect(text(noWhy)).toMatch(/\*\*Why:\*\*/);
    // A user memory needs no reason.
    const user = await call('memory_save', {
      ...CORRECTION,
      type: 'user',
      body: 'Senior Go developer.',
    });
    expect(user.isError).toBeFalsy();
  });

  it('finds a memory by file, by file stem or by name', async () => {
    await call('memory_save', CORRECTION);
    for (const file of [
      'integration-tests-hit-a-real-database.md',
      'integration-tests-hit-a-real-database',
      'Integration tests hit a real database',
    ]) {
      const read = await call('memory_read', { file });
      expect(read.isError).toBeFalsy();
      expect(text(read)).toContain('name: Integration tests hit a real database');
    }
    const revoked = await call('memory_revoke', {
      file: 'Integration tests hit a real database',
      reason: 'moved to containers',
    });
    expect(text(revoked)).toMatch(/^Revoked integration-tests-hit-a-real-database\.md\./);
  });

  it('reports failures as results, not protocol errors', async () => {
    const missing = await call('memory_read', { file: 'nope.md' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/No memory named nope\.md/);
    const traversal = await call('memory_read', { file: '../secret.md' });
    expect(traversal.isError).toBe(true);
    const noReason = await call('memory_revoke', { file: 'nope.md', reason: ' ' });
    expect(noReason.isError).toBe(true);
    const badType = await call('memory_save', { ...CORRECTION, type: 'opinion' });
    expect(badType.isError).toBe(true);
    expect(text(badType)).toContain('user, feedback, project or reference');
    await call('memory_save', CORRECTION);
    const self = await call('memory_revoke', {
      file: 'integration-tests-hit-a-real-database.md',
      reason: 'wrong',
      superseded_by: 'integration-tests-hit-a-real-database',
    });
    expect(self.isError).toBe(true);
    expect(text(self)).toMatch(/cannot be superseded by itself/);
    expect((await readMemory(dir, 'integration-tests-hit-a-real-database.md')).header.status).toBe(
      'active',
    );
  });

  it('refuses to overwrite a revoked memory so the revocation stays on record', async () => {
    await call('memory_save', CORRECTION);
    await call('memory_revoke', {
      file: 'integration-tests-hit-a-real-database.md',
      reason: 'wrong',
    });
    const again = await call('memory_save', CORRECTION);
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(/revoked memory \(reason: wrong\)/);
  });

  it('refuses to revoke a memory twice, keeping the first revocation reason and date', async () => {
    await call('memory_save', CORRECTION);
    await call('memory_revoke', {
      file: 'integration-tests-hit-a-real-database.md',
      reason: 'moved to containers',
    });
    const first = await readFile(join(dir, 'integration-tests-hit-a-real-database.md'), 'utf8');
    const again = await call('memory_revoke', {
      file: 'integration-tests-hit-a-real-database',
      reason: 'a different reason',
    });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(
      /integration-tests-hit-a-real-database\.md is already revoked \(reason: moved to containers\)/,
    );
    expect(await readFile(join(dir, 'integration-tests-hit-a-real-database.md'), 'utf8')).toBe(
      first,
    );
  });

  it('serves the index and each memory as resources', async () => {
    await call('memory_save', CORRECTION);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      INDEX_RESOURCE_URI,
      'engram://memory/integration-tests-hit-a-real-database.md',
    ]);
    const index = await client.readResource({ uri: INDEX_RESOURCE_URI });
    expect((index.contents[0] as { text: string }).text).toMatch(
      /^- \[Integration tests hit a real database\]/,
    );
    const memory = await client.readResource({
      uri: 'engram://memory/integration-tests-hit-a-real-database.md',
    });
    expect((memory.contents[0] as { text: string }).text).toContain('type: feedback');

    // A literal % would make the index line point at another file: refused at this door too.
    const percent = await call('memory_save', { ...CORRECTION, name: 'x', file: 'done-100%.md' });
    expect(percent.isError).toBe(true);
    // Names that are not URI-safe but index-safe: spaces, CJK, a folder.
    for (const file of ['ops/on call 轮值.md']) {
      await call('memory_save', { ...CORRECTION, name: file, file });
    }
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    expect(listed).not.toContain('engram://memory/done-100%25.md');
    expect(listed).toContain('engram://memory/ops/on%20call%20%E8%BD%AE%E5%80%BC.md');
    for (const uri of [...listed, 'engram://memory/ops/on call 轮值.md']) {
      const read = await client.readResource({ uri });
      expect((read.contents[0] as { text: string }).text.length).toBeGreaterThan(0);
    }
  });
});
