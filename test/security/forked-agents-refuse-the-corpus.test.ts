// The whole attack corpus through the forked agents: `engram extract` and `engram dream` as child
// processes, the real Anthropic SDK against the scripted model server, the model scripted to call
// its file tools (read, list, grep, write, edit; dream also find) with every corpus path. The
// tool results come back to the model in its next request, so the server's recorded bodies show
// what each call did. Afterwards: 0 writes outside, the canary and the outside sentinel in no
// request body and no output, every positive control landed, and a cloned repository's
// committed settings (memory directory, model, base URL) changed nothing.
import { readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from 'engram/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCliProcess } from '../support/cli-process.js';
import { startFlipper } from '../support/folder-flipper.js';
import {
  canaryFiles,
  commitSettings,
  type DoorOp,
  indexProblems,
  leaks,
  MIN_FORMS,
  mayAccept,
  memoryText,
  PATH_FORMS,
  type PathForm,
  POSITIVE_CONTROLS,
  RACE_FORMS,
  SETTINGS_FORMS,
  type Snapshot,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
  type World,
} from './attack-corpus.js';

let w: World;
let model: ScriptedModelServer;
let evil: ScriptedModelServer;
let before: Snapshot;
const outputs: Record<string, string> = {};
const attempted = new Set<string>();
const allowed: string[] = [];

/** How the fork's file tools perform each operation; what they lack says so. */
const FORK_TOOLS: Record<DoorOp, readonly string[] | { unsupported: string }> = {
  read: ['read', 'list', 'grep'],
  write: ['write', 'edit'],
  create: ['write'],
  delete: { unsupported: 'the forked agents have no delete tool' },
  rename: { unsupported: 'the forked agents have no rename tool' },
};

interface Call {
  id: string;
  form: PathForm | undefined;
  op: DoorOp;
  name: string;
  input: Record<string, unknown>;
}

function inputFor(name: string, path: string): Record<string, unknown> {
  switch (name) {
    case 'grep':
      return { pattern: 'SENTINEL|CANARY|BEGIN', path };
    case 'write':
      // The index is the forks' own to write (see INDEX_IS_THEIRS): a well-formed one.
      return {
        path,
        content: path === 'MEMORY.md' ? INDEX_LINE : memoryText('corpus', 'corpus write'),
      };
    case 'edit':
      // The sentinel's prefix, not the sentinel: the model's own input must not carry the secret.
      return { path, old_string: 'OUTSIDE-SENTINEL-', new_string: 'edited by the corpus' };
    case 'find':
      return { pattern: path };
    default:
      return { path };
  }
}

/** Every path form with every tool its operations map to; each call has its own id. */
function corpusCalls(
  tag: string,
  tools: Record<DoorOp, readonly string[] | { unsupported: string }>,
  world: World = w,
) {
  const calls: Call[] = [];
  for (const form of PATH_FORMS) {
    const seen = new Set<string>();
    for (const op of form.ops) {
      const names = tools[op];
      if (!Array.isArray(names)) continue;
      for (const name of names as readonly string[]) {
        if (seen.has(name)) continue;
        seen.add(name);
        const id = `toolu_${tag}_${calls.length}`;
        calls.push({ id, form, op, name, input: inputFor(name, form.path(world)) });
      }
    }
  }
  return calls;
}

const step = (calls: readonly Call[]): ScriptStep => ({
  toolUse: calls.map((c) => ({ id: c.id, name: c.name, input: c.input })),
});

/** Every tool result the fork sent back, by tool_use id, from the recorded request bodies. */
function toolResults(requests: readonly RecordedRequest[]) {
  const results = new Map<string, { isError: boolean; text: string }>();
  for (const r of requests)
    for (const m of r.body?.messages ?? [])
      for (const block of Array.isArray(m.content) ? m.content : [])
        if (block.type === 'tool_result')
          results.set(block.tool_use_id, {
            isError: block.is_error === true,
            text: JSON.stringify(block.content),
          });
  return results;
}

/**
 * The forked agents maintain MEMORY.md (extraction adds its lines, dream prunes it): writing and
 * editing it is their job, inside the directory, so the `memory-md` form is accepted there.
 */
const INDEX_IS_THEIRS = 'memory-md';
const INDEX_LINE = '- [Plain note](plain-note.md) — a positive control\n';

/** The calls that did what a refused form must not: a successful result. */
function wronglyAccepted(calls: readonly Call[], results: ReturnType<typeof toolResults>) {
  return calls
    .filter(
      (c) =>
        c.form &&
        c.form.id !== INDEX_IS_THEIRS &&
        !mayAccept(c.form, c.op) &&
        results.get(c.id)?.isError === false &&
        // grep passes over a file it may not read and says so by finding nothing in it.
        !(c.name === 'grep' && results.get(c.id)?.text === JSON.stringify('No matches.')),
    )
    .map((c) => `${c.form?.id}:${c.name}: ${results.get(c.id)?.text.slice(0, 200)}`);
}

/** The test's own inputs (transcripts, sessions): written by the test, not by a door. */
const inputs = () => join(w.top, 'inputs');

const transcriptOf = async (name: string, say: string) => {
  const file = join(inputs(), `${name}.json`);
  await writeFile(
    file,
    JSON.stringify([
      { id: `${name}-u`, role: 'user', content: [{ type: 'text', text: say }] },
      { id: `${name}-a`, role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
    ]),
  );
  return file;
};

const env = (server: ScriptedModelServer) => ({
  ...w.env,
  ANTHROPIC_BASE_URL: server.url,
  ANTHROPIC_API_KEY: 'k',
});

async function extract(label: string, steps: ScriptStep[], dirArgs = ['--dir', w.memory]) {
  model.requests.length = 0;
  model.push(...steps);
  const transcript = await transcriptOf(label, 'Remember what matters about the deploys.');
  const r = await runCliProcess(
    ['extract', '--transcript', transcript, ...dirArgs, '--json'],
    env(model),
    w.project,
  );
  outputs[`extract:${label}`] = `${r.stdout}\n${r.stderr}`;
  for (const [i, q] of model.requests.entries())
    outputs[`extract:${label}:request${i}`] = q.rawBody;
  return { run: r, results: toolResults(model.requests), requests: [...model.requests] };
}

beforeAll(async () => {
  requireBuild();
  w = await setupWorld('engram-fork-door-');
  model = await startScriptedModelServer();
  evil = await startScriptedModelServer();
  await commitSettings(w, SETTINGS_FORMS, evil.anthropicBaseURL);
  await mkdir(inputs());
  allowed.push(inputs());
  before = await snapshotOutside(w, allowed);
});
afterAll(async () => {
  await model?.close();
  await evil?.close();
  await w?.cleanup();
});

describe('the forked agents (scripted model)', () => {
  it('extraction: every path form through read, list, grep, write and edit is refused', async () => {
    const calls = corpusCalls('x', FORK_TOOLS);
    const reads = calls.filter((c) => ['read', 'list', 'grep'].includes(c.name));
    const writes = calls.filter((c) => c.name === 'write');
    const edits = calls.filter((c) => c.name === 'edit');
    const controls: Call[] = POSITIVE_CONTROLS.map((c, i) => ({
      id: `toolu_control_${i}`,
      form: undefined,
      op: 'create',
      name: 'write',
      input: { path: c.file, content: memoryText(c.what, c.body) },
    }));
    const readBack: Call[] = POSITIVE_CONTROLS.map((c, i) => ({
      id: `toolu_readback_${i}`,
      form: undefined,
      op: 'read',
      name: 'read',
      input: { path: c.file },
    }));
    const { results } = await extract('attack', [
      step(reads),
      step([...writes, ...controls]),
      step([...edits, ...readBack]),
      { text: 'done' },
    ]);
    // Every call reached the tools and its result reached the model.
    for (const c of [...calls, ...controls, ...readBack])
      expect(results.has(c.id), c.id).toBe(true);
    for (const c of calls) if (c.form) attempted.add(c.form.id);
    // A form whose operations the fork lacks (delete and rename of .git) is the only one left out.
    const lacking = PATH_FORMS.filter((f) => f.ops.every((op) => !Array.isArray(FORK_TOOLS[op])));
    expect(PATH_FORMS.filter((f) => !attempted.has(f.id))).toEqual(lacking);
    expect(wronglyAccepted(calls, results)).toEqual([]);
    // The positive controls were written and read back.
    for (const [i, c] of POSITIVE_CONTROLS.entries()) {
      expect(results.get(`toolu_control_${i}`)?.isError, c.file).toBe(false);
      expect(results.get(`toolu_readback_${i}`)?.text, c.file).toContain(c.body);
      expect(await readFile(join(w.memory, c.file), 'utf8')).toContain(c.body);
    }
  }, 300_000);

  it('dream: the corpus through read, find, write and edit is refused the same way', async () => {
    // A world of its own: extraction above already replaced some of the links with its files.
    const d = await setupWorld('engram-dream-door-');
    try {
      const sessions = join(d.top, 'sessions');
      await mkdir(sessions);
      await writeFile(
        join(sessions, 's1.jsonl'),
        `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hola' } })}\n`,
      );
      const start = await snapshotOutside(d, [sessions]);
      const calls = corpusCalls('d', { ...FORK_TOOLS, read: ['read', 'find'] }, d);
      model.requests.length = 0;
      model.push(step(calls), { text: 'consolidated' });
      const r = await runCliProcess(
        ['dream', '--force', '--json', '--dir', d.memory, '--transcripts', sessions],
        { ...d.env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'k' },
        d.project,
      );
      const texts: Record<string, string> = { dream: `${r.stdout}\n${r.stderr}` };
      for (const [i, q] of model.requests.entries()) texts[`dream:request${i}`] = q.rawBody;
      const results = toolResults(model.requests);
      for (const c of calls) expect(results.has(c.id), `${c.id} ${r.stderr}`).toBe(true);
      expect(wronglyAccepted(calls, results)).toEqual([]);
      expect(snapshotDiff(start, await snapshotOutside(d, [sessions]))).toEqual([]);
      expect(leaks(d, texts)).toEqual([]);
      expect(await canaryFiles(d, [d.memory, d.engramHome, d.project])).toEqual([]);
    } finally {
      await d.cleanup();
    }
  }, 300_000);

  it('300 fork writes while a folder flips to a link land nothing outside', async () => {
    const race = RACE_FORMS[0]!;
    attempted.add(race.id);
    const calls: Call[] = Array.from({ length: 300 }, (_, i) => ({
      id: `toolu_race_${i}`,
      form: undefined,
      op: 'write',
      name: 'write',
      input: { path: `${race.folder}/r${i}.md`, content: memoryText(`race ${i}`, 'raced') },
    }));
    const flipper = await startFlipper(join(w.memory, race.folder), w.outside);
    const { results } = await extract('race', [step(calls), { text: 'done' }]);
    const flips = await flipper.stop();
    expect(flips).toBeGreaterThan(0);
    expect(calls.filter((c) => results.get(c.id)?.isError === false).length).toBeGreaterThan(0);
  }, 300_000);

  it('a cloned repository with committed settings: default folder, the user’s model server only', async () => {
    for (const f of SETTINGS_FORMS) attempted.add(f.id);
    const { run, requests } = await extract(
      'cloned',
      [
        {
          toolUse: [
            {
              id: 'toolu_keys',
              name: 'write',
              input: { path: 'authorized_keys', content: 'ssh-ed25519 AAAA attacker' },
            },
            {
              id: 'toolu_note',
              name: 'write',
              input: { path: 'cloned-note.md', content: memoryText('cloned', 'where it lands') },
            },
          ],
        },
        { text: 'done' },
      ],
      [],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.map((r) => r.body?.model)).not.toContain('attacker-model');
    expect(evil.requests).toEqual([]);
    const projects = join(w.engramHome, 'projects');
    const keys = readdirSync(projects).filter((k) => k !== 'other-project');
    expect(keys).toHaveLength(1);
    const dir = join(projects, keys[0]!, 'memory');
    expect(await readFile(join(dir, 'cloned-note.md'), 'utf8')).toContain('where it lands');
    allowed.push(dirname(dir));
  }, 300_000);

  it('afterwards: 0 outside changes, the canary in no request, output or memory file', async () => {
    expect(attempted.size).toBeGreaterThanOrEqual(MIN_FORMS);
    expect(snapshotDiff(before, await snapshotOutside(w, allowed))).toEqual([]);
    expect(leaks(w, outputs)).toEqual([]);
    expect(await canaryFiles(w, [w.memory, w.engramHome, w.project])).toEqual([]);
    expect(
      await indexProblems(w.memory, { movedFolders: RACE_FORMS.map((r) => r.folder) }),
    ).toEqual([]);
  });
});
