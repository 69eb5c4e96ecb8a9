import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { userPromptSubmitHook } from '../hooks/events.js';
import { createEngramMcpServer } from '../mcp/server.js';
import { saveMemory } from '../memdir/index.js';
import { createEngram } from './create-engram.js';
import type { Engram } from './types.js';

const body = (text: string) => `${text}.\n**Why:** it broke once.\n**How to apply:** always.`;

/** A project with a main memory and two agents' memories, all about database migrations. */
async function project(): Promise<Engram> {
  const root = mkdtempSync(join(tmpdir(), 'engram-agent-recall-'));
  const cwd = join(root, 'repo');
  mkdirSync(join(cwd, '.git'), { recursive: true });
  const engram = createEngram({ cwd, env: { ENGRAM_HOME: join(root, 'home') }, homedir: root });
  await saveMemory(engram.memoryDir, {
    type: 'project',
    name: 'Main migrations',
    description: 'Database migrations run with the advisory lock held',
    body: body('Hold the lock'),
  });
  await saveMemory(await engram.agentDir('reviewer'), {
    type: 'feedback',
    name: 'Reviewer migrations',
    description: 'Reviewer flags database migrations without tests',
    body: body('Flag them'),
  });
  await saveMemory(await engram.agentDir('planner', 'user'), {
    type: 'feedback',
    name: 'Planner migrations',
    description: 'Planner splits database migrations into two deploys',
    body: body('Split them'),
  });
  return engram;
}

const files = (r: { selected: Array<{ file: string }> }) => r.selected.map((m) => m.file);

describe('agent memory through the runtime, the hooks and MCP', () => {
  it('the library: an agent option or session recalls only that agent; @mentions of known agents too', async () => {
    const engram = await project();
    expect(engram.knownAgents()).toEqual(['planner', 'reviewer']);
    expect(files(await engram.recall({ query: 'database migrations' }))).toEqual([
      'main-migrations.md',
    ]);
    expect(files(await engram.recall({ query: 'database migrations', agent: 'reviewer' }))).toEqual(
      ['reviewer-migrations.md'],
    );
    const sub = engram.openSession({ agent: 'planner' });
    expect(files(await sub.recall({ query: 'database migrations' }))).toEqual([
      'planner-migrations.md',
    ]);
    const main = engram.openSession();
    expect(files(await main.recall({ query: '@reviewer check the database migrations' }))).toEqual([
      'reviewer-migrations.md',
    ]);
    // A file mention or an unknown name is not an agent: the main chain answers.
    expect(
      files(await main.recall({ query: 'see @src/db.ts for the database migrations' })),
    ).toEqual(['main-migrations.md']);
    expect(files(await main.recall({ query: '@nobody database migrations' }))).toEqual([
      'main-migrations.md',
    ]);
    await expect(
      engram.recall({ query: 'database migrations', agent: '../x' }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it("an agent's recall names each memory's layer as that agent's scope, the closest one too", async () => {
    const engram = await project();
    const reviewer = await engram.recall({ query: 'database migrations', agent: 'reviewer' });
    expect(reviewer.selected.map((m) => [m.file, m.layer])).toEqual([
      ['reviewer-migrations.md', 'agent:reviewer/local'],
    ]);
    expect(reviewer.shape.layers).toEqual(['agent:reviewer/local']);
    expect(reviewer.shape.layerDirs).toEqual({
      'agent:reviewer/local': await engram.agentDir('reviewer'),
    });
    const planner = await engram.recall({ query: 'database migrations', agent: 'planner' });
    expect(planner.selected.map((m) => m.layer)).toEqual(['agent:planner/user']);
    const main = await engram.recall({ query: 'database migrations' });
    expect(main.selected.map((m) => m.layer)).toEqual(['project']);
  });

  it('the UserPromptSubmit hook maps agent_type onto the agent, and refuses a type that is not a name', async () => {
    const engram = await project();
    const input = (agentType?: string) => ({
      sessionId: 'agent-hook-session',
      prompt: 'what do we know about database migrations',
      ...(agentType !== undefined ? { agentType } : {}),
      raw: {},
    });
    const ctx = { engram };
    const asAgent = await userPromptSubmitHook(input('reviewer'), ctx, { verify: false });
    const text = JSON.stringify(asAgent);
    expect(text).toContain('reviewer-migrations.md');
    expect(text).not.toContain('main-migrations.md');
    const asMain = JSON.stringify(await userPromptSubmitHook(input(), ctx, { verify: false }));
    expect(asMain).toContain('main-migrations.md');
    expect(asMain).not.toContain('reviewer-migrations.md');
    expect(await userPromptSubmitHook(input('../planner'), ctx, { verify: false })).toEqual({});
  });

  it('MCP: memory_recall, memory_save and memory_list take an agent', async () => {
    const engram = await project();
    const server = createEngramMcpServer({ memoryDir: engram.memoryDir, engram });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const first = result.content[0];
      return { isError: result.isError === true, text: first?.type === 'text' ? first.text : '' };
    };
    try {
      const recalled = await call('memory_recall', {
        query: 'database migrations',
        agent: 'reviewer',
      });
      expect(recalled.text).toContain('Reviewer flags database migrations');
      expect(recalled.text).not.toContain('advisory lock');
      const saved = await call('memory_save', {
        type: 'reference',
        name: 'Reviewer checklist',
        description: 'Reviewer checklist for schema changes lives in docs/review.md',
        body: 'See docs/review.md.',
        agent: 'reviewer',
        scope: 'project',
      });
      expect(saved.isError).toBe(false);
      expect(saved.text).toMatch(/agent reviewer \(project scope/);
      const listed = await call('memory_list', { agent: 'reviewer' });
      expect(listed.text).toContain('reviewer-checklist.md');
      expect(listed.text).toContain('[agent:reviewer/project]');
      expect(listed.text).not.toContain('main-migrations.md');
      expect(
        (
          await call('memory_save', {
            ...{ type: 'user', name: 'x', description: 'y', body: 'z' },
            agent: 'a/b',
          })
        ).isError,
      ).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe('the system prompt of an agent session', () => {
  it("shows the agent's own indexes, never the main index", async () => {
    const engram = await project();
    const planner = await engram.openSession({ agent: 'planner' }).systemPrompt();
    expect(planner).toContain('(planner-migrations.md)');
    expect(planner).toContain('# Memory index of agent planner (user scope)');
    expect(planner).not.toContain('main-migrations.md');
    expect(planner).not.toContain('reviewer-migrations.md');
    // Its own first directory is where it is told to save.
    expect(planner).toContain(engram.agentChain('planner')[0]!.dir);
    const reviewer = await engram.openSession({ agent: 'reviewer' }).systemPrompt();
    expect(reviewer).toContain('(reviewer-migrations.md)');
    expect(reviewer).not.toContain('main-migrations.md');
    const main = await engram.openSession().systemPrompt();
    expect(main).toContain('(main-migrations.md)');
    expect(main).not.toContain('planner-migrations.md');
  });
});
