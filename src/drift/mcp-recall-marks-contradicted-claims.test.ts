import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createEngramMcpServer } from '../mcp/server.js';
import { fixtureProject, git, memoryText, RENDER_TS } from './__fixtures__/project.js';

/** A memory citing `src/render.ts:142`, served over MCP for `project`; the connected client. */
async function serveBlitMemory(project: string): Promise<Client> {
  const dir = join(project, '.memory');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'blit.md'),
    memoryText(
      'blit',
      'where the sprite blit happens',
      'See `src/render.ts:142` and `renderBlit()`.',
    ),
  );
  writeFileSync(join(dir, 'MEMORY.md'), '- [blit](blit.md) — where the sprite blit happens\n');
  const server = createEngramMcpServer({ memoryDir: dir, projectDir: project });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

/** The MCP door checks claims against the project it was given, like the CLI and the library. */
describe('claim verification through the MCP door', () => {
  it('marks the recalled memory whose cited file was renamed', async () => {
    const project = fixtureProject({ 'src/render.ts': RENDER_TS });
    git(project, 'mv', 'src/render.ts', 'src/renderer.ts');
    const client = await serveBlitMemory(project);
    try {
      const result = (await client.callTool({
        name: 'memory_recall',
        arguments: { query: 'where does the sprite blit happen' },
      })) as CallToolResult;
      const first = result.content[0];
      const text = first?.type === 'text' ? first.text : '';
      expect(text).toContain('`src/render.ts` no longer exists (cited at line 142)');
      const structured = result.structuredContent as { shape: Record<string, unknown> };
      expect(structured.shape).toMatchObject({ contradictedSelected: 1, claimStaleHitRatio: 1 });
    } finally {
      await client.close();
    }
  });

  it('one server, two recalls: a rename made between them is seen by the second', async () => {
    const project = fixtureProject({ 'src/render.ts': RENDER_TS });
    const client = await serveBlitMemory(project);
    const recall = async () => {
      const result = (await client.callTool({
        name: 'memory_recall',
        arguments: { query: 'where does the sprite blit happen' },
      })) as CallToolResult;
      const first = result.content[0];
      return {
        text: first?.type === 'text' ? first.text : '',
        shape: (result.structuredContent as { shape: Record<string, unknown> }).shape,
      };
    };
    try {
      const before = await recall();
      expect(before.text).toContain('blit.md');
      expect(before.text).not.toContain('no longer exists');
      expect(before.shape).toMatchObject({ contradictedSelected: 0 });
      git(project, 'mv', 'src/render.ts', 'src/renderer.ts');
      const after = await recall();
      expect(after.text).toContain('`src/render.ts` no longer exists (cited at line 142)');
      expect(after.shape).toMatchObject({ contradictedSelected: 1 });
    } finally {
      await client.close();
    }
  });
});
