import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../src/cli/test-io.js';
import { openMemory } from '../src/facade/index.js';
import { createEngramMcpServer } from '../src/mcp/index.js';
import { createMemoryToolHandlers } from '../src/memory-tool/index.js';

// The four doors share one directory: what one writes, the others see, and a revocation through
// one is honoured by all.
describe('MCP, memory tool, hooks and facade over one memory directory', () => {
  let root: string;
  let dir: string;
  let client: Client;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'engram-doors-'));
    dir = join(root, 'memory');
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'doors', version: '1.0.0' });
    await Promise.all([createEngramMcpServer({ memoryDir: dir }).connect(b), client.connect(a)]);
  });
  afterEach(async () => {
    await client.close();
    await rm(root, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = (r: CallToolResult) => (r.content[0] as { text: string }).text;

  it('a memory saved over MCP is seen by the memory tool, the hooks and the facade; a delete revokes it everywhere', async () => {
    await call('memory_save', {
      type: 'user',
      name: 'Prefers short answers',
      description: 'the user prefers short answers with code first',
      body: 'Answer briefly, code first, explanation after.',
    });
    const tool = createMemoryToolHandlers({ memoryDir: dir });
    expect(await tool.view({ command: 'view', path: '/memories' })).toContain(
      '/memories/prefers-short-answers.md',
    );

    const io = testIo({
      stdin: JSON.stringify({
        session_id: 's1',
        cwd: root,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'give me short answers about the parser',
      }),
    });
    const hook = await runCaptured(['hook', 'user-prompt-submit', '--dir', dir], io);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain(
      'Answer briefly, code first',
    );

    const memory = await openMemory({
      cwd: root,
      memoryDir: dir,
      env: io.env,
      homedir: io.homedir,
      instructions: false,
    });
    expect(await memory.systemPrompt()).toContain(
      '- [Prefers short answers](prefers-short-answers.md)',
    );
    await memory.close();

    await tool.delete({ command: 'delete', path: '/memories/prefers-short-answers.md' });
    expect(
      first(await call('memory_recall', { query: 'give me short answers about the parser' })),
    ).toBe('No memory is relevant to this request.');
    expect(first(await call('memory_list', { include_revoked: true }))).toMatch(/\[revoked\]/);
    const again = await runCaptured(['hook', 'user-prompt-submit', '--dir', dir], io);
    expect(JSON.parse(again.stdout)).toEqual({});
  });
});
