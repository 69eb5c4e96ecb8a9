/**
 * Acceptance for issue 7 (session notes and notes-based compaction), black box: the built CLI as a
 * child process with a fresh HOME/ENGRAM_HOME, and the public `engram/*` entry points. Data is our
 * own (a ledger-reconciliation session), shaped like a real Claude Code transcript.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Message } from 'engram/llm';
import { estimateMessagesTokens } from 'engram/llm';
import {
  awaySummary,
  chooseKeptRange,
  decideNotesUpdate,
  findSelfReferences,
  waitForNotes,
} from 'engram/session';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from 'engram/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CcTranscript, prose } from './issue-7-9-support.js';

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

let root: string;
let server: ScriptedModelServer;
let env: NodeJS.ProcessEnv;

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((done) => {
    const started = performance.now();
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...env, ...extraEnv }, cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({
          code: error ? Number(error.code ?? 1) : 0,
          stdout,
          stderr,
          ms: performance.now() - started,
        }),
    );
  });
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  root = await mkdtemp(join(tmpdir(), 'engram-acc7-'));
  server = await startScriptedModelServer({ fallback: { text: 'done' } });
  env = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ENGRAM_HOME: join(root, 'engram-home'),
    ENGRAM_MANAGED_DIR: join(root, 'managed'),
    ANTHROPIC_API_KEY: 'acc-key',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    ENGRAM_MODEL: 'anthropic:acc-notes-model',
  };
  mkdirSync(env.HOME!, { recursive: true });
});
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const notesPathOf = (id: string) => join(env.ENGRAM_HOME!, 'session-memory', id, 'notes.md');

// ---------------------------------------------------------------------------------------------
// Thresholds (pure policy over the context as it is now)

let seq = 0;
const text = (role: 'user' | 'assistant', body: string): Message => ({
  id: `m${++seq}`,
  role,
  content: [{ type: 'text', text: body }],
});
const call = (): Message => ({
  id: `m${++seq}`,
  role: 'assistant',
  content: [{ type: 'tool_use', id: `toolu_${seq}`, name: 'Grep', input: { pattern: 'accrual' } }],
});
const resultFor = (use: Message, body: string): Message => {
  const block = use.content[0] as { id: string };
  return {
    id: `m${++seq}`,
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: block.id, content: body }],
  };
};

/** Pads the last message's text so the whole conversation measures exactly `target` tokens. */
function padTo(messages: Message[], target: number): Message[] {
  const last = messages.at(-1)!;
  const base = estimateMessagesTokens(messages.slice(0, -1));
  const block = last.content.find((b) => b.type === 'text' || b.type === 'tool_result')!;
  const fill = 'x'.repeat(Math.max(0, (target - base) * 4));
  if (block.type === 'text') block.text = fill;
  else if (block.type === 'tool_result') block.content = fill;
  expect(estimateMessagesTokens(messages)).toBe(target);
  return messages;
}

describe('update thresholds', () => {
  const history = () =>
    padTo([text('user', 'reconcile the March ledger'), text('assistant', '')], 12_000);

  it('9,999 tokens: no first update; 10,000 after a pause: first update', () => {
    const small = padTo([text('user', 'hello'), text('assistant', '')], 9_999);
    expect(decideNotesUpdate({ messages: small, cursor: {} }).kind).toBe('skip');
    const enough = padTo([text('user', 'hello'), text('assistant', '')], 10_000);
    expect(decideNotesUpdate({ messages: enough, cursor: {} }).kind).toBe('update');
  });

  function grown(calls: number, growth: number, endWithText: boolean) {
    const before = history();
    const cursor = {
      tokensAtLastUpdate: estimateMessagesTokens(before),
      lastMessageId: before.at(-1)!.id,
    };
    const after = [...before];
    for (let i = 0; i < calls; i++) {
      const use = call();
      after.push(use, resultFor(use, 'ok'));
    }
    if (endWithText) after.push(text('assistant', ''));
    padTo(after, cursor.tokensAtLastUpdate + growth);
    return decideNotesUpdate({ messages: after, cursor });
  }

  it('+5,000 tokens with 2 tool calls and tools in the last turn: no update', () => {
    expect(grown(2, 5_000, false).kind).toBe('skip');
  });
  it('+5,000 tokens with 3 tool calls: update', () => {
    expect(grown(3, 5_000, false).kind).toBe('update');
  });
  it('+5,000 tokens and the last assistant turn made no tool call: update', () => {
    expect(grown(1, 5_000, true).kind).toBe('update');
    expect(grown(0, 5_000, true).kind).toBe('update');
  });
  it('many tool calls but +4,999 tokens: no update', () => {
    expect(grown(12, 4_999, false).kind).toBe('skip');
    expect(grown(12, 4_999, true).kind).toBe('skip');
  });

  it('re-reading one large file many times: cumulative usage is huge, at most one update', () => {
    const file = prose(6_000, 'schema');
    const messages: Message[] = [text('user', 'why does the accrual job double-post?')];
    let cursor: { tokensAtLastUpdate?: number; lastMessageId?: string } = {};
    let cumulative = 0;
    let updates = 0;
    for (let i = 0; i < 20; i++) {
      const use: Message = {
        id: `r${i}`,
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: `toolu_r${i}`,
            name: 'Read',
            input: { file_path: '/srv/ledger/schema.sql' },
          },
        ],
      };
      // Claude Code answers a re-read of an unchanged file with a short stub, not the file again.
      messages.push(use, resultFor(use, i === 0 ? file : 'File unchanged since last read.'));
      cumulative += estimateMessagesTokens(messages); // what the provider bills: the whole context each call
      const d = decideNotesUpdate({ messages, cursor });
      if (d.kind === 'update') {
        updates++;
        cursor = { tokensAtLastUpdate: d.contextTokens, lastMessageId: messages.at(-1)!.id };
      }
    }
    expect(cumulative).toBeGreaterThan(100_000);
    expect(updates).toBeLessThanOrEqual(1);
  });
});

// ---------------------------------------------------------------------------------------------
// Cut rules (library, on neutral messages from a host that keeps reply parts apart)

describe('cut rules', () => {
  it('a boundary inside a multi-part reply or between tool_use and tool_result moves earlier', () => {
    const m: Message[] = [text('user', 'start')];
    for (let i = 0; i < 8; i++)
      m.push(text('assistant', prose(400, `a${i}`)), text('user', prose(400, `u${i}`)));
    const at = m.length;
    // One reply in three messages sharing the API message id (as a host that does not regroup).
    m.push(
      {
        id: 'msg_split',
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'compare totals', signature: 's' }],
      },
      {
        id: 'msg_split',
        role: 'assistant',
        content: [{ type: 'text', text: 'Summing the journal.' }],
      },
      {
        id: 'msg_split',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_sum',
            name: 'Bash',
            input: { command: 'psql -c "select sum(amount) from journal"' },
          },
        ],
      },
      {
        id: 'res',
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_sum', content: prose(11_000, 'rows') },
        ],
      },
    );
    for (let i = 0; i < 6; i++)
      m.push(text('assistant', prose(300, `b${i}`)), text('user', prose(300, `v${i}`)));
    const limits = { minTokens: 1, minTextMessages: 1, maxTokens: 40_000 };
    for (const boundary of [at, at + 1, at + 2]) {
      const range = chooseKeptRange(m, boundary, limits);
      expect(range.start, `boundary ${boundary}`).toBeLessThanOrEqual(at);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// CLI: notes, update (structure restore, self-reference check), compact

function writeTool(request: RecordedRequest): string {
  const tools = (request.body.tools ?? []) as Array<{
    name: string;
    input_schema?: { properties?: Record<string, unknown> };
  }>;
  const tool = tools.find((t) => /write/i.test(t.name) && t.input_schema?.properties?.content);
  if (!tool) throw new Error(`no write tool offered: ${tools.map((t) => t.name).join(', ')}`);
  return tool.name;
}

/** The first half of a session: ~20,000 tokens of reconciliation work, replies split over lines. */
let half = 0;
function firstHalf(t: CcTranscript) {
  half++;
  t.user('The March ledger is off by 41.07 EUR; find the posting that breaks reconciliation.');
  for (let i = 0; i < 6; i++) {
    const id = `toolu_01L${half}x${i}`;
    t.reply(
      { thinking: `check batch ${i}` },
      { text: `Checking posting batch ${i}.` },
      { toolUse: { id, name: 'Bash', input: { command: `ledger-cli batch show ${i}` } } },
    ).noise();
    t.result(id, prose(2_500, `batch${i}`));
    t.reply({ text: `Batch ${i} balances: ${prose(200, `sum${i}`)}` });
    t.user(`keep going after batch ${i}`);
  }
}

describe('engram session update / notes / compact (built CLI)', () => {
  it('a scripted updater that deletes a header and talks about note-taking: header restored, self-reference flagged', async () => {
    const sid = '3c1f9a77-0d2e-4b6a-9f10-7e8d2c4b5a61';
    const t = new CcTranscript(sid, join(root, 'ledger'));
    firstHalf(t);
    const file = join(root, 'update.jsonl');
    writeFileSync(file, t.toJsonl());
    const path = notesPathOf(sid);
    let before = '';
    server.push(
      (request) => {
        before = readFileSync(path, 'utf8');
        const lines = before.split('\n');
        const worklog = lines.findIndex((l) => /^#\s+Worklog/i.test(l));
        expect(worklog).toBeGreaterThan(0);
        lines.splice(worklog, 1); // the updater drops the Worklog header
        const learnings = lines.findIndex((l) => /^#\s+Learnings/i.test(l));
        lines[learnings + 1] = '_whatever I learned_'; // and rewords an italic description
        const current = lines.findIndex((l) => /^#\s+Current State/i.test(l));
        lines.splice(
          current + 2,
          0,
          'I am updating the session notes now.',
          'Batches 0-5 balance; the gap is elsewhere.',
        );
        return {
          toolUse: [{ name: writeTool(request), input: { path, content: lines.join('\n') } }],
        };
      },
      { text: 'Notes brought up to date.' },
    );
    const run = await cli(['session', 'update', '--transcript', file, '--force', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.status).toBe('updated');
    expect(data.repairs.length).toBeGreaterThan(0);
    expect(JSON.stringify(data.selfReferences)).toMatch(/updating the session notes/);

    const notes = await cli(['session', 'notes', sid]);
    expect(notes.code).toBe(0);
    expect(notes.stdout).toMatch(/^#\s+Worklog/m);
    expect(notes.stdout).toContain('Batches 0-5 balance; the gap is elsewhere.');
    // Every header and italic description the template had is there again, in order.
    const skeleton = (s: string) => s.split('\n').filter((l) => /^#\s|^_.*_$/.test(l.trim()));
    expect(skeleton(notes.stdout)).toEqual(skeleton(before));
    expect(skeleton(before).filter((l) => l.startsWith('#'))).toHaveLength(10);
    expect(findSelfReferences(notes.stdout).length).toBeGreaterThan(0);

    const json = JSON.parse((await cli(['session', 'notes', sid, '--json'])).stdout);
    expect(json.sessionId).toBe(sid);
    expect(json.sections).toHaveLength(10);
  });

  it('a user template replaces the default ten sections', async () => {
    const sid = '9a8b7c6d-1111-4222-8333-944455556666';
    const dir = join(env.ENGRAM_HOME!, 'session-memory');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'template.md'),
      '# Goal\n_What the user wants reconciled._\n\n# Suspects\n_Postings that might be wrong, with ids._\n',
    );
    try {
      const t = new CcTranscript(sid, join(root, 'ledger'));
      firstHalf(t);
      const file = join(root, 'template.jsonl');
      writeFileSync(file, t.toJsonl());
      server.push({ text: 'Nothing to add.' });
      const run = await cli(['session', 'update', '--transcript', file, '--force']);
      expect(run.code, run.stderr).toBe(0);
      const notes = readFileSync(notesPathOf(sid), 'utf8');
      expect(notes).toMatch(/^# Goal$/m);
      expect(notes).toMatch(/^# Suspects$/m);
      expect(notes).not.toMatch(/Worklog/);
    } finally {
      await rm(join(dir, 'template.md'));
    }
  });

  it('compaction with notes: a lone 12,000-token tool result does not satisfy the floor; the cut extends to ≥ 5 text messages', async () => {
    const sid = '5d4c3b2a-aaaa-4bbb-8ccc-d00000000007';
    const t = new CcTranscript(sid, join(root, 'ledger'));
    firstHalf(t);
    const covered = t.lines.length;
    const early = join(root, 'early.jsonl');
    writeFileSync(early, t.toJsonl(covered));
    const path = notesPathOf(sid);
    server.push(
      (request) => {
        const notes = readFileSync(path, 'utf8').replace(
          /(^#\s+Current State\n_.*_\n)/m,
          '$1Batches 0-5 balance; next: dump the suspense account.\n',
        );
        return { toolUse: [{ name: writeTool(request), input: { path, content: notes } }] };
      },
      { text: 'ok' },
    );
    const update = await cli(['session', 'update', '--transcript', early, '--force']);
    expect(update.code, update.stderr).toBe(0);

    // After the notes: one reply (split over lines) whose tool returns 12,000 tokens.
    t.reply(
      { thinking: 'dump suspense' },
      { text: 'Dumping the suspense account.' },
      {
        toolUse: {
          id: 'toolu_01Dump',
          name: 'Bash',
          input: { command: 'ledger-cli dump suspense' },
        },
      },
    );
    t.result('toolu_01Dump', prose(12_000, 'suspense'));
    const full = join(root, 'full.jsonl');
    writeFileSync(full, t.toJsonl());
    const out = join(root, 'compacted.json');
    const run = await cli(['compact', '--transcript', full, '--json', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.method).toBe('notes');
    expect(typeof data.why).toBe('string');
    expect(data.kept.textMessages).toBeGreaterThanOrEqual(5);
    expect(data.kept.tokens).toBeGreaterThanOrEqual(10_000);
    expect(data.kept.tokens).toBeLessThanOrEqual(40_000);
    expect(data.kept.start).toBeLessThan(data.boundary.index + 1);
    expect(data.kept.reasons.length).toBeGreaterThan(1);

    const compacted = JSON.parse(readFileSync(out, 'utf8')) as Message[];
    const first = compacted[0]!;
    expect(first.role).toBe('user');
    expect(JSON.stringify(first.content)).toContain('next: dump the suspense account.');
    // Valid conversation: every kept tool_result has its tool_use before it.
    const seen = new Set<string>();
    for (const m of compacted) {
      for (const b of m.content) {
        if (b.type === 'tool_use') seen.add(b.id);
        if (b.type === 'tool_result') expect(seen.has(b.tool_use_id), b.tool_use_id).toBe(true);
      }
    }
    // A preview: the notes cursor is untouched, so compacting again gives the same answer.
    const again = JSON.parse((await cli(['compact', '--transcript', full, '--json'])).stdout);
    expect(again.kept).toEqual(data.kept);
  });

  it('notes taken mid-reply (a split reply still streaming): the kept part starts at that reply, whole', async () => {
    const sid = '6e5d4c3b-bbbb-4ccc-8ddd-e00000000008';
    const t = new CcTranscript(sid, join(root, 'ledger'));
    t.user('Post the correcting journal entry for the 41.07 EUR gap.');
    t.reply({ text: 'Writing the correction.' });
    t.user('go on');
    // The reply is on disk only up to its text line when the notes are taken.
    t.reply(
      { thinking: 'which account' },
      { text: 'Posting to 4410 Suspense.' },
      {
        toolUse: {
          id: 'toolu_01Post',
          name: 'Bash',
          input: { command: 'ledger-cli post --fix 41.07' },
        },
      },
    );
    const textLine = t.lines.length - 1;
    t.result('toolu_01Post', 'posted entry J-20260314-7');
    for (let i = 0; i < 6; i++)
      t.reply({ text: prose(1_200, `after${i}`) }).user(prose(800, `reply${i}`));
    const early = join(root, 'mid.jsonl');
    writeFileSync(early, t.toJsonl(textLine));
    const path = notesPathOf(sid);
    server.push(
      (request) => ({
        toolUse: [
          {
            name: writeTool(request),
            input: {
              path,
              content: readFileSync(path, 'utf8').replace(
                /(^#\s+Current State\n_.*_\n)/m,
                '$1Posting the fix.\n',
              ),
            },
          },
        ],
      }),
      { text: 'ok' },
    );
    expect((await cli(['session', 'update', '--transcript', early, '--force'])).code).toBe(0);
    const full = join(root, 'mid-full.jsonl');
    writeFileSync(full, t.toJsonl());
    const out = join(root, 'mid-out.json');
    const run = await cli(['compact', '--transcript', full, '--json', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.method).toBe('notes');
    const kept = (JSON.parse(readFileSync(out, 'utf8')) as Message[]).slice(1);
    const reply = kept.find(
      (m) => JSON.stringify(m.content).includes('toolu_01Post') && m.role === 'assistant',
    );
    expect(reply, 'the reply holding the call is kept').toBeDefined();
    expect(reply!.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
  });

  it('without notes: --no-model truncates, with a model it summarizes, and each says so', async () => {
    const sid = '7f6e5d4c-cccc-4ddd-8eee-f00000000009';
    const t = new CcTranscript(sid, join(root, 'ledger'));
    for (let i = 0; i < 8; i++) firstHalf(t); // ~52,000 tokens: over the 40,000-token truncation budget
    const file = join(root, 'nonotes.jsonl');
    writeFileSync(file, t.toJsonl());
    const trunc = await cli(['compact', '--transcript', file, '--json', '--no-model']);
    expect(trunc.code, trunc.stderr).toBe(0);
    const td = JSON.parse(trunc.stdout);
    expect(td.method).toBe('truncation');
    expect(td.why).toBeTruthy();
    expect(td.tokensAfter).toBeLessThan(td.tokensBefore);
    server.push({ text: 'Summary: batches 0-5 balance three times over; the gap is elsewhere.' });
    const sum = await cli(['compact', '--transcript', file, '--json']);
    expect(sum.code, sum.stderr).toBe(0);
    expect(JSON.parse(sum.stdout).method).toBe('summary');
    const human = await cli(['compact', '--transcript', file, '--no-model']);
    expect(human.stdout).toMatch(/truncation/i);
    // A short session that already fits: nothing removed, nothing added.
    const short = new CcTranscript('7f6e5d4c-cccc-4ddd-8eee-f0000000000d', join(root, 'ledger'));
    firstHalf(short);
    const shortFile = join(root, 'short.jsonl');
    writeFileSync(shortFile, short.toJsonl());
    const fits = JSON.parse(
      (await cli(['compact', '--transcript', shortFile, '--json', '--no-model'])).stdout,
    );
    expect(fits.removed.count).toBe(0);
    expect(fits.tokensAfter).toBe(fits.tokensBefore);
  });

  it('notes written by hand: compaction uses them, an oversized section is shortened with a marker; empty notes fall back', async () => {
    const sid = '2b3c4d5e-eeee-4fff-8aaa-b0000000000c';
    const t = new CcTranscript(sid, join(root, 'ledger'));
    for (let i = 0; i < 3; i++) firstHalf(t);
    const file = join(root, 'hand.jsonl');
    writeFileSync(file, t.toJsonl());
    const dir = join(env.ENGRAM_HOME!, 'session-memory', sid);
    mkdirSync(dir, { recursive: true });
    const worklog = Array.from(
      { length: 400 },
      (_, i) => `- step ${i}: reconciled posting batch ${i} against the bank feed`,
    ).join('\n');
    writeFileSync(
      join(dir, 'notes.md'),
      `# Session Title\n_A short title._\nLedger gap hunt\n\n# Current State\n_Now and next._\nNext: suspense account.\n\n# Worklog\n_One line per step._\n${worklog}\n`,
    );
    const out = join(root, 'hand-out.json');
    const run = await cli(['compact', '--transcript', file, '--json', '--no-model', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.method).toBe('notes');
    expect(data.truncatedSections.join(' ')).toMatch(/Worklog/);
    const lead = JSON.stringify((JSON.parse(readFileSync(out, 'utf8')) as Message[])[0]!.content);
    expect(lead).toContain('Next: suspense account.');
    expect(lead).toContain('step 0:');
    expect(lead).not.toContain('step 399:');
    expect(lead.length).toBeLessThan(worklog.length);

    writeFileSync(join(dir, 'notes.md'), '');
    const empty = JSON.parse(
      (await cli(['compact', '--transcript', file, '--json', '--no-model'])).stdout,
    );
    expect(empty.method).toBe('truncation');
  });

  it('an update marked running for 61 s does not hold compaction up', async () => {
    const sid = '8a7b6c5d-dddd-4eee-8fff-a0000000000a';
    const t = new CcTranscript(sid, join(root, 'ledger'));
    firstHalf(t);
    const file = join(root, 'stale.jsonl');
    writeFileSync(file, t.toJsonl());
    const dir = join(env.ENGRAM_HOME!, 'session-memory', sid);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'update-running.json'),
      JSON.stringify({
        startedAt: Date.now() - 61_000,
        pid: process.pid,
        host: (await import('node:os')).hostname(),
      }),
    );
    const run = await cli(['compact', '--transcript', file, '--json', '--no-model']);
    expect(run.code, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data.wait.outcome).toBe('stale');
    expect(data.wait.waitedMs).toBeLessThan(1_000);
  });
});

// ---------------------------------------------------------------------------------------------
// waitForNotes (library, fake clock) and the away summary

describe('waitForNotes', () => {
  function fakeClock(start: number) {
    let now = start;
    return {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
    };
  }
  const record = async (age: number, clock: { now: () => number }) => {
    const dir = await mkdtemp(join(root, 'wait-'));
    const file = join(dir, 'update-running.json');
    const host = (await import('node:os')).hostname();
    writeFileSync(file, JSON.stringify({ startedAt: clock.now() - age, pid: process.pid, host }));
    return file;
  };

  it('an update running for 61 s: no wait at all', async () => {
    const clock = fakeClock(1_800_000_000_000);
    const result = await waitForNotes(await record(61_000, clock), { clock });
    expect(result.waitedMs).toBe(0);
  });

  it('an update running for 5 s that never ends: proceeds after at most 15 s', async () => {
    const clock = fakeClock(1_800_000_000_000);
    const result = await waitForNotes(await record(5_000, clock), { clock });
    expect(result.outcome).toBe('timeout');
    expect(result.waitedMs).toBeGreaterThan(0);
    expect(result.waitedMs).toBeLessThanOrEqual(15_000);
  });
});

describe('awaySummary', () => {
  it('sends the notes and the recent conversation, and returns at most three sentences', async () => {
    const own = await startScriptedModelServer({
      steps: [
        {
          text: 'You are reconciling the March ledger. Batches 0-5 balance. Next, dump the suspense account. Then post the fix. Then rerun the report.',
        },
      ],
    });
    try {
      const history: Message[] = [];
      for (let i = 0; i < 40; i++)
        history.push(
          text(i % 2 ? 'assistant' : 'user', `turn number ${i} about account ${4400 + i}`),
        );
      const notes = '# Current State\n_What is happening now._\nSuspense account 4410 is next.\n';
      const summary = await awaySummary(history, notes, { model: scriptedModel(own) });
      const sentences = summary.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== '');
      expect(sentences.length).toBeGreaterThanOrEqual(1);
      expect(sentences.length).toBeLessThanOrEqual(3);
      const sent = own.requests[0]!.rawBody;
      expect(sent).toContain('Suspense account 4410 is next.');
      expect(sent).toContain('turn number 39 about account 4439');
      expect(sent).not.toContain('turn number 5 about account 4405');
    } finally {
      await own.close();
    }
  });
});
