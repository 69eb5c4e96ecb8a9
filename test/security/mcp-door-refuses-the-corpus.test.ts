// The whole attack corpus through `engram mcp` over stdio, driven by the official MCP SDK client
// in one session: memory_read and the `engram://memory/...` resource for reads, memory_save for
// writes and creates, memory_revoke where a file exists, the race form as 300 saves while a
// folder flips, the wrapper-closing bodies through memory_recall, and a server started in a
// cloned repository with committed settings. Afterwards nothing outside the allowed roots
// changed and no result carries the canary or an outside sentinel.
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type ScriptedModelServer, startScriptedModelServer } from 'engram/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapPool } from '../../src/util/pool.js';
import { CLI, requireBuild } from '../support/cli-process.js';
import { startFlipper } from '../support/folder-flipper.js';
import {
  BODY_FORMS,
  canaryFiles,
  commitSettings,
  INJECTED_ORDER,
  indexProblems,
  leaks,
  MIN_FORMS,
  POSITIVE_CONTROLS,
  RACE_FORMS,
  SETTINGS_FORMS,
  type Snapshot,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
  type World,
  wrapperEscapes,
} from './attack-corpus.js';
import { attemptPathForms, type DoorTable, untried } from './attack-corpus-door.js';

let w: World;
let evil: ScriptedModelServer;
let good: ScriptedModelServer;
let before: Snapshot;
let client: Client;
const outputs: Record<string, string> = {};
/** Every corpus form this door really attempted (the floor is asserted at the end). */
const attempted = new Set<string>();

async function connect(args: string[], env: NodeJS.ProcessEnv): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: env as Record<string, string>,
    cwd: w.project,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const c = new Client({ name: 'corpus', version: '1.0.0' });
  await c.connect(transport);
  const close = c.close.bind(c);
  c.close = async () => {
    await close();
    outputs[`stderr:${args.join(' ')}`] = stderr;
  };
  return c;
}

type Call = { ok: boolean; output: string };
async function tool(c: Client, name: string, args: Record<string, unknown>): Promise<Call> {
  try {
    const r = await c.callTool({ name, arguments: args });
    return { ok: r.isError !== true, output: JSON.stringify(r) };
  } catch (error) {
    return { ok: false, output: String(error) };
  }
}

async function resource(uri: string): Promise<Call> {
  try {
    const r = await client.readResource({ uri });
    return { ok: true, output: JSON.stringify(r) };
  } catch (error) {
    return { ok: false, output: String(error) };
  }
}

const save = (file: string, body = 'corpus body', name = 'corpus note') => ({
  type: 'project',
  name,
  description: `a corpus attempt: ${name}`,
  body: `${body}\n\n**Why:** corpus.\n**How to apply:** corpus.`,
  file,
});

/** memory_read and both spellings of the resource URI (raw, and percent-encoded per segment). */
const MCP_DOOR: DoorTable = {
  read: [
    { name: 'memory_read', run: (f) => tool(client, 'memory_read', { file: f }) },
    { name: 'resource-raw', run: (f) => resource(`engram://memory/${f}`) },
    {
      name: 'resource-encoded',
      run: (f) => resource(`engram://memory/${f.split('/').map(encodeURIComponent).join('/')}`),
    },
  ],
  write: [
    { name: 'memory_save', run: (f) => tool(client, 'memory_save', save(f)) },
    {
      name: 'memory_revoke',
      onlyExisting: true,
      run: (f) => tool(client, 'memory_revoke', { file: f, reason: 'corpus' }),
    },
  ],
  create: [{ name: 'memory_save', run: (f) => tool(client, 'memory_save', save(f)) }],
  delete: { unsupported: 'the MCP server has no delete tool (memory_revoke is tried as a write)' },
  rename: { unsupported: 'the MCP server has no rename tool' },
};

beforeAll(async () => {
  requireBuild();
  w = await setupWorld('engram-mcp-door-');
  evil = await startScriptedModelServer();
  good = await startScriptedModelServer();
  await commitSettings(w, SETTINGS_FORMS, evil.anthropicBaseURL);
  before = await snapshotOutside(w);
  client = await connect(['--dir', w.memory, '--no-model'], w.env);
});
afterAll(async () => {
  await client?.close().catch(() => {});
  await evil?.close();
  await good?.close();
  await w?.cleanup();
});

describe('the MCP door (official SDK client over stdio)', () => {
  it('refuses every path form through every tool and the resource template', async () => {
    // One session, calls side by side as a client may send them.
    const run = await attemptPathForms(w, MCP_DOOR);
    Object.assign(outputs, run.outputs);
    expect(untried(run)).toEqual([]);
    for (const id of run.tried) attempted.add(id);
    expect(run.attempts.filter((a) => a.wronglyAccepted)).toEqual([]);
  });

  it('300 saves while a folder flips to a link land nothing outside', async () => {
    const race = RACE_FORMS[0]!;
    attempted.add(race.id);
    const flipper = await startFlipper(join(w.memory, race.folder), w.outside);
    const files = Array.from({ length: 300 }, (_, i) => `${race.folder}/r${i}.md`);
    const results = await mapPool(files, 4, (f) => tool(client, 'memory_save', save(f)));
    const flips = await flipper.stop();
    expect(flips).toBeGreaterThan(0);
    expect(results.filter((r) => r.ok).length).toBeGreaterThan(0);
  }, 300_000);

  it('accepts every positive control: save, read, resource, revoke', async () => {
    for (const c of POSITIVE_CONTROLS) {
      const saved = await tool(client, 'memory_save', save(c.file, c.body, c.what));
      expect(saved.ok, saved.output).toBe(true);
      expect(await readFile(join(w.memory, c.file), 'utf8')).toContain(c.body);
      const read = await tool(client, 'memory_read', { file: c.file });
      expect(read.output).toContain(JSON.stringify(c.body).slice(1, -1));
      const uri = `engram://memory/${c.file.split('/').map(encodeURIComponent).join('/')}`;
      const r = await resource(uri);
      expect(r.ok, r.output).toBe(true);
      expect(r.output).toContain(JSON.stringify(c.body).slice(1, -1));
    }
    const revoked = await tool(client, 'memory_revoke', {
      file: POSITIVE_CONTROLS[0]!.file,
      reason: 'done',
    });
    expect(revoked.ok, revoked.output).toBe(true);
  });

  it('wrapper-closing bodies stay inside the memory wrapper in memory_recall', async () => {
    for (const f of BODY_FORMS) {
      attempted.add(f.id);
      const r = await tool(
        client,
        'memory_save',
        save(f.file, f.body, `deploy checklist for the wrapper attack ${f.id}`),
      );
      expect(r.ok, r.output).toBe(true);
    }
    const recalled = await client.callTool({
      name: 'memory_recall',
      arguments: { query: 'deploy checklist for the wrapper attack' },
    });
    const text = (recalled.content as Array<{ text: string }>)[0]?.text ?? '';
    outputs.recall = JSON.stringify(recalled);
    expect(text.split(INJECTED_ORDER).length - 1).toBeGreaterThan(0);
    expect(wrapperEscapes(text, INJECTED_ORDER)).toEqual([]);
  });

  it('a server started in a cloned repository with committed settings ignores them', async () => {
    for (const f of SETTINGS_FORMS) attempted.add(f.id);
    // A real key and base URL from the user's environment; the repository names another server.
    const env = { ...w.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: good.anthropicBaseURL };
    const cloned = await connect([], env);
    try {
      const saved = await tool(cloned, 'memory_save', save('cloned-note.md', 'where it lands'));
      expect(saved.ok, saved.output).toBe(true);
      const recalled = await tool(cloned, 'memory_recall', { query: 'where does it land' });
      expect(recalled.ok, recalled.output).toBe(true);
      outputs['cloned:recall'] = recalled.output;
    } finally {
      await cloned.close();
    }
    // Not in ~/.ssh, not in the outside folder: in engram's default folder for this project.
    const projects = join(w.engramHome, 'projects');
    const keys = readdirSync(projects).filter((k) => k !== 'other-project');
    expect(keys).toHaveLength(1);
    const dir = join(projects, keys[0]!, 'memory');
    expect(await readFile(join(dir, 'cloned-note.md'), 'utf8')).toContain('where it lands');
    expect(evil.requests).toEqual([]);
  });

  it('afterwards: 0 outside changes, 0 leaks, 0 broken index lines', async () => {
    // The corpus may grow, never shrink: this door attempted at least MIN_FORMS forms.
    expect(attempted.size).toBeGreaterThanOrEqual(MIN_FORMS);
    await client.close();
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
    expect(leaks(w, outputs)).toEqual([]);
    expect(await canaryFiles(w, [w.memory, w.engramHome, w.project])).toEqual([]);
    expect(
      await indexProblems(w.memory, { movedFolders: RACE_FORMS.map((r) => r.folder) }),
    ).toEqual([]);
  });
});
