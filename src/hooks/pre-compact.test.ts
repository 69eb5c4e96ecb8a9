import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { PRE_COMPACT_BUDGET_MS, preCompactHook } from './events.js';
import { HOOK_TIMEOUTS } from './settings.js';

describe('pre-compact hook', () => {
  let server: ScriptedModelServer;
  let root: string;
  beforeAll(async () => {
    server = await startScriptedModelServer({ fallback: { text: 'ok', delayMs: 5_000 } });
    root = await mkdtemp(join(tmpdir(), 'engram-precompact-'));
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('gives up on a model slower than its budget with {} and releases the update record', async () => {
    expect(PRE_COMPACT_BUDGET_MS).toBeLessThan(HOOK_TIMEOUTS['pre-compact'] * 1_000);
    const transcript = join(root, 's.jsonl');
    await writeFile(
      transcript,
      `${JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's-slow', message: { role: 'user', content: 'tidy the ledger' } })}\n`,
    );
    const environment = { cwd: root, homedir: root, env: { ENGRAM_HOME: join(root, 'home') } };
    const out = await preCompactHook(
      { sessionId: 's-slow', transcriptPath: transcript, cwd: root, raw: {} },
      {
        environment,
        memoryDir: join(root, 'memory'),
        model: scriptedModel(server, 'anthropic', { retry: { maxRetries: 0 } }),
        budgetMs: 300,
      },
    );
    expect(out).toEqual({});
    const files = await readdir(join(root, 'home', 'session-memory', 's-slow'));
    expect(files).not.toContain('update-running.json');
  });
});
