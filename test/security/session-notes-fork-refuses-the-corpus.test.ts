// The attack corpus through the third forked agent: the session-notes updater, which may read its
// session folder and write exactly one file (the notes). The updater runs as the hooks and the
// library run it (`updateSessionNotes`, the real Anthropic SDK against the scripted model server),
// its session folder planted with the corpus (links out, hard links, `.git`, a flipping folder),
// the model scripted to call read, list, grep, write and edit with every form. Afterwards: no
// write landed anywhere but the notes file, nothing outside changed, and the canary and the
// outside sentinel are in no request the fork sent.
import { mkdir, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngramEnvironment } from '../../src/config/index.js';
import { SESSION_MEMORY_DIR, sessionPaths } from '../../src/session/session-store.js';
import { updateSessionNotes } from '../../src/session/update-notes.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../../src/testing/index.js';
import {
  canaryFiles,
  type DoorOp,
  leaks,
  MIN_FORMS,
  mayAccept,
  PATH_FORMS,
  type Snapshot,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
  type World,
} from './attack-corpus.js';

let w: World;
let server: ScriptedModelServer;
let environment: EngramEnvironment;
let before: Snapshot;
/** The session's id: its folder is the corpus's planted directory, moved into place. */
const SESSION = 'memory';

/** How the notes fork performs each operation; what it lacks says so. */
const NOTES_TOOLS: Record<DoorOp, readonly string[]> = {
  read: ['read', 'list', 'grep'],
  write: ['write', 'edit'],
  create: ['write'],
  delete: [],
  rename: [],
};

beforeAll(async () => {
  const planted = await setupWorld('engram-notes-door-');
  // The session folder is where the notes updater's tools are rooted: move the planted memory
  // directory there (relative links inside keep their targets, links out still point out).
  environment = {
    cwd: planted.project,
    homedir: planted.home,
    env: { ...planted.env, ENGRAM_HOME: planted.engramHome },
  };
  const dir = sessionPaths(environment, SESSION).dir;
  expect(dirname(dir)).toBe(join(planted.engramHome, SESSION_MEMORY_DIR));
  await mkdir(dirname(dir), { recursive: true });
  await rename(planted.memory, dir);
  w = { ...planted, memory: dir };
  server = await startScriptedModelServer();
  before = await snapshotOutside(w);
});
afterAll(async () => {
  await server?.close();
  await w?.cleanup();
});

interface Call {
  id: string;
  formId: string;
  op: DoorOp;
  name: string;
  input: Record<string, unknown>;
}

function inputFor(name: string, path: string): Record<string, unknown> {
  if (name === 'grep') return { pattern: 'SENTINEL|CANARY|BEGIN', path };
  if (name === 'write') return { path, content: 'corpus write\n' };
  if (name === 'edit') return { path, old_string: 'OUTSIDE-SENTINEL-', new_string: 'edited' };
  return { path };
}

describe('the session-notes fork (scripted model)', () => {
  it('refuses every corpus form but its own notes file, and leaks nothing', async () => {
    const calls: Call[] = [];
    for (const form of PATH_FORMS) {
      const names = new Set(form.ops.flatMap((op) => NOTES_TOOLS[op].map((n) => [op, n] as const)));
      for (const [op, name] of names) {
        calls.push({
          id: `toolu_n_${calls.length}`,
          formId: form.id,
          op,
          name,
          input: inputFor(name, form.path(w)),
        });
      }
    }
    const notes = sessionPaths(environment, SESSION).notes;
    const reads = calls.filter((c) => NOTES_TOOLS.read.includes(c.name));
    const writes = calls.filter((c) => !NOTES_TOOLS.read.includes(c.name));
    // Positive control: the fork's one job, an edit of its notes file, still lands.
    const control = {
      id: 'toolu_control',
      name: 'write',
      input: { path: notes, content: '# Session notes\n\nCorpus control: notes still written.\n' },
    };
    const toolUse = (cs: readonly { id: string; name: string; input: unknown }[]) => ({
      toolUse: cs.map((c) => ({ id: c.id, name: c.name, input: c.input })),
    });
    server.push(toolUse(reads), toolUse(writes), toolUse([control]), { text: 'done' });
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: {
        system: 'You are a coding agent.',
        tools: [],
        messages: [
          { id: 'u1', role: 'user', content: [{ type: 'text', text: 'Fix the deploy script.' }] },
          { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Fixed it.' }] },
        ],
      },
      force: true,
      maxTurns: 6,
    });
    expect(outcome.status, JSON.stringify(outcome)).not.toMatch(/skipped|busy/);

    const results = new Map<string, { isError: boolean; text: string }>();
    const bodies: Record<string, string> = {};
    for (const [i, r] of server.requests.entries()) {
      bodies[`request${i}`] = r.rawBody;
      for (const m of r.body?.messages ?? [])
        for (const block of Array.isArray(m.content) ? m.content : [])
          if (block.type === 'tool_result')
            results.set(block.tool_use_id, {
              isError: block.is_error === true,
              text: JSON.stringify(block.content),
            });
    }
    for (const c of calls) expect(results.has(c.id), c.id).toBe(true);
    const attempted = new Set(calls.map((c) => c.formId));
    expect(attempted.size).toBeGreaterThanOrEqual(MIN_FORMS);
    // A write or edit succeeds only on the notes file; a read only where the corpus allows it.
    const wrong = calls.filter((c) => {
      const r = results.get(c.id);
      if (!r || r.isError) return false;
      if (c.name === 'grep' && r.text === JSON.stringify('No matches.')) return false;
      const form = PATH_FORMS.find((f) => f.id === c.formId)!;
      return NOTES_TOOLS.read.includes(c.name) ? !mayAccept(form, c.op) : true;
    });
    expect(wrong.map((c) => `${c.formId}:${c.name}`)).toEqual([]);
    expect(results.get('toolu_control')?.isError).toBe(false);
    expect(await readFile(notes, 'utf8')).toContain('Corpus control: notes still written.');
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
    expect(leaks(w, bodies)).toEqual([]);
    expect(await canaryFiles(w, [w.memory, w.engramHome, w.project])).toEqual([]);
  }, 300_000);
});
