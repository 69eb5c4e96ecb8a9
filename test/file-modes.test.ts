import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExtractor } from '../src/extract/index.js';
import { FILE_TOOL_DEFINITIONS } from '../src/llm/file-tools.js';
import { saveTool } from '../src/mcp/tools.js';
import { saveMemory } from '../src/memdir/index.js';
import { createMemoryToolHandlers } from '../src/memdir/memory-tool/handler.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../src/testing/index.js';

// Every door that writes a memory leaves it private: 0600 files in 0700 directories it created.
const mode = async (path: string) => (await stat(path)).mode & 0o777;

const MEMORY = `---
name: deploys go through the release train
description: production deploys happen only on the Tuesday release train
type: project
---
Deploys go out on the Tuesday train only.
**Why:** the on-call rota is staffed for Tuesdays.
**How to apply:** propose merges for Tuesday, never a Friday hotfix deploy.
`;

let root: string;
let server: ScriptedModelServer;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-modes-'));
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

describe('file modes', () => {
  it('background extraction writes its memory and index 0600 in a 0700 directory', async () => {
    const memoryDir = join(root, 'extracted', 'memory');
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: join(memoryDir, 'release-train.md'), content: MEMORY } },
          {
            name: 'write',
            input: {
              path: join(memoryDir, 'MEMORY.md'),
              content: '- [Release train](release-train.md) — deploys only on Tuesdays\n',
            },
          },
        ],
      },
      { text: 'Saved one memory.' },
    );
    const extractor = createExtractor({ memoryDir, model: scriptedModel(server), cwd: root });
    const run = await extractor.extractNow({
      tools: FILE_TOOL_DEFINITIONS,
      messages: [
        {
          id: 'u1',
          role: 'user',
          content: [{ type: 'text', text: 'We only deploy on the Tuesday release train.' }],
        },
        { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] },
      ],
    });
    expect(run.outcome).not.toBe('failed');
    expect(await mode(join(memoryDir, 'release-train.md'))).toBe(0o600);
    expect(await mode(join(memoryDir, 'MEMORY.md'))).toBe(0o600);
    expect(await mode(memoryDir)).toBe(0o700);
  });

  it('the library save, the MCP save and the memory tool agree', async () => {
    const lib = join(root, 'lib');
    await saveMemory(lib, {
      name: 'a',
      description: 'one line',
      type: 'user',
      body: 'The user prefers tabs.',
    });
    const mcp = join(root, 'mcp');
    await saveTool(
      { dir: mcp },
      { name: 'b', description: 'one line', type: 'user', body: 'The user reads Rust.' },
    );
    const toolRoot = join(root, 'tool');
    const handlers = createMemoryToolHandlers({ memoryDir: toolRoot });
    await handlers.create({ command: 'create', path: '/memories/c.md', file_text: 'note' });
    for (const dir of [lib, mcp]) {
      expect(await mode(dir)).toBe(0o700);
      expect(await mode(join(dir, 'MEMORY.md'))).toBe(0o600);
    }
    expect(await mode(join(lib, 'a.md'))).toBe(0o600);
    expect(await mode(join(mcp, 'b.md'))).toBe(0o600);
    expect(await mode(join(toolRoot, 'c.md'))).toBe(0o600);
  });
});
