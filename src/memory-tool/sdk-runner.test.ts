import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseIndexEntries } from '../memdir/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { createMemoryToolHandlers } from './index.js';

let dir: string;
let server: ScriptedModelServer;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-memtool-sdk-'));
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the handler inside the official SDK's tool runner", () => {
  it('runs the model’s memory calls, returns refusals as is_error results, and keeps the index', async () => {
    const file = `---\nname: Deploys need a ticket\ndescription: every production deploy needs a change ticket\ntype: project\n---\nEvery production deploy needs a change ticket.\n**Why:** audit requirement.\n**How to apply:** before any deploy.`;
    server.push(
      {
        toolUse: [
          { name: 'memory', input: { command: 'view', path: '/memories' } },
          {
            name: 'memory',
            input: { command: 'create', path: '/memories/../escape.md', file_text: 'x' },
          },
        ],
      },
      {
        toolUse: [
          {
            name: 'memory',
            input: { command: 'create', path: '/memories/deploy-ticket.md', file_text: file },
          },
        ],
      },
      { text: 'Saved.' },
    );
    const client = new Anthropic({
      apiKey: 'test-key',
      baseURL: server.anthropicBaseURL,
      maxRetries: 0,
    });
    const runner = client.beta.messages.toolRunner({
      model: 'scripted',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'Remember: production deploys need a change ticket.' }],
      tools: [betaMemoryTool(createMemoryToolHandlers({ memoryDir: dir }))],
      max_iterations: 5,
    });
    const final = await runner.runUntilDone();
    expect(final.content).toEqual([{ type: 'text', text: 'Saved.' }]);

    // The second request carried both results; the traversal came back as an error the model reads.
    const results = server.requests[1]!.body.messages.at(-1).content as Array<{
      content: unknown;
      is_error?: boolean;
    }>;
    expect(JSON.stringify(results[0]!.content)).toContain(
      "Here're the files and directories up to 2 levels deep in /memories",
    );
    expect(results[0]!.is_error).toBeUndefined();
    expect(results[1]!.is_error).toBe(true);
    expect(JSON.stringify(results[1]!.content)).toContain('would escape /memories directory');

    expect(
      parseIndexEntries(await readFile(join(dir, 'MEMORY.md'), 'utf8')).map((e) => e.file),
    ).toEqual(['deploy-ticket.md']);
  });
});
