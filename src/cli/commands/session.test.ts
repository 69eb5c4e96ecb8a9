import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClaudeCodeTranscript } from '../../llm/claude-code-transcript.js';
import { ClaudeCodeTranscript, filler } from '../../session/__fixtures__/conversation.js';
import { DEFAULT_NOTES_SECTIONS, renderNotesTemplate } from '../../session/prompts.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/index.js';
import { runCaptured, testIo } from '../test-io.js';
import { cliWaitTimeout } from './session.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => server.close());

const CURRENT_DESC =
  '_Say what is in progress right now, what is finished, and the very next step still open._';

/** A Claude Code session of ~48,000 tokens: 8 rounds of split replies with 6,000-token reads. */
function transcript(): ClaudeCodeTranscript {
  const t = new ClaudeCodeTranscript('5e55a0e1-aaaa-bbbb-cccc-000000000001');
  t.user('Find why the port is ignored.');
  for (let i = 0; i < 8; i++) {
    const id = `toolu_cli_${i}`;
    t.reply(
      { thinking: `look at module ${i}` },
      { text: `Reading module ${i}.` },
      { toolUse: { id, name: 'Read', input: { file_path: `/p/src/m${i}.ts` } } },
    );
    t.results({ id, content: filler(6_000) });
    t.reply({ text: `Module ${i} does not touch the port.` });
    t.user(`ok, next (${i})`);
  }
  return t;
}

function setup() {
  const io = testIo();
  const t = transcript();
  const file = join(io.homedir, 'session.jsonl');
  writeFileSync(file, t.toJsonl());
  const dir = join(io.env.ENGRAM_HOME!, 'session-memory', t.sessionId);
  return {
    io,
    t,
    file,
    dir,
    messages: parseClaudeCodeTranscript(t.toJsonl()).messages,
  };
}

describe('engram session notes', () => {
  it('exits 3 when the session has no notes', async () => {
    const { io } = setup();
    const run = await runCaptured(['session', 'notes', 'nope'], io);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/No notes for session nope/);
  });

  it('prints the notes, or JSON with sizes and the cursor', async () => {
    const { io, dir } = setup();
    mkdirSync(dir, { recursive: true });
    const notes = renderNotesTemplate(DEFAULT_NOTES_SECTIONS).replace(
      `${CURRENT_DESC}\n`,
      `${CURRENT_DESC}\nport bug\n`,
    );
    writeFileSync(join(dir, 'notes.md'), notes);
    const id = dir.split('/').at(-1)!;
    const text = await runCaptured(['session', 'notes', id], io);
    expect(text).toMatchObject({ code: 0, stdout: notes });
    const json = await runCaptured(['session', 'notes', id, '--json'], io);
    const data = JSON.parse(json.stdout);
    expect(data).toMatchObject({
      sessionId: id,
      templateOnly: false,
      content: notes,
      running: null,
      cursor: {},
    });
    expect(data.sections).toHaveLength(10);
  });

  it('refuses a session id with a path in it', async () => {
    const { io } = setup();
    expect((await runCaptured(['session', 'notes', '../../etc'], io)).code).toBe(2);
  });
});

describe('engram compact', () => {
  it('with notes: prints the kept range and why (JSON)', async () => {
    const { io, dir, file, messages } = setup();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'notes.md'),
      renderNotesTemplate(DEFAULT_NOTES_SECTIONS).replace(
        `${CURRENT_DESC}\n`,
        `${CURRENT_DESC}\nmodules 0-4 checked\n`,
      ),
    );
    // The notes cover up to the reply after round 4's results.
    const boundary = messages.findIndex((m) =>
      JSON.stringify(m).includes('Module 4 does not touch'),
    );
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({ tokensAtLastUpdate: 30_000, lastMessageId: messages[boundary]!.id }),
    );
    const out = join(io.homedir, 'compacted.json');
    const run = await runCaptured(['compact', '--transcript', file, '--json', '--out', out], io);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data).toMatchObject({
      sessionId: '5e55a0e1-aaaa-bbbb-cccc-000000000001',
      method: 'notes',
      why: 'session notes are available',
      totalMessages: messages.length,
      boundary: { id: messages[boundary]!.id, index: boundary },
      kept: { start: boundary + 1, end: messages.length - 1, firstId: messages[boundary + 1]!.id },
    });
    expect(data.kept.reasons[0]).toMatch(new RegExp(`notes cover messages up to #${boundary}`));
    const compacted = JSON.parse(readFileSync(out, 'utf8'));
    expect(compacted[0].content[0].text).toContain('modules 0-4 checked');
    expect(compacted.slice(1)).toEqual(messages.slice(boundary + 1));
  });

  it('without notes or a model: truncation, in words', async () => {
    const { io, file } = setup();
    const run = await runCaptured(['compact', '--transcript', file], io);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^method: truncation \(no notes file and no model is configured\)\n/,
    );
    expect(run.stdout).toMatch(/kept: messages #\d+–#\d+ \(\d+ of \d+\), \d+ tokens/);
    expect(run.stdout).toMatch(/why this range:\n {2}- kept the newest/);
  });

  it('waits at most 15 s for a running update, counted from the launch (never under 10 s)', () => {
    expect(cliWaitTimeout(400)).toBe(14_300);
    expect(cliWaitTimeout(0)).toBe(14_700);
    expect(cliWaitTimeout(3_600_000)).toBe(10_000);
  });

  it('compact refuses an --out whose folder does not exist before compacting, creating nothing', async () => {
    const { io, file } = setup();
    const run = await runCaptured(
      ['compact', '--transcript', file, '--out', 'no-such/kept.json', '--no-model'],
      io,
    );
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `--out no-such/kept.json: no such directory ${join(io.homedir, 'no-such')}`,
    );
    expect(existsSync(join(io.homedir, 'no-such'))).toBe(false);
  });

  it('a missing transcript exits 3', async () => {
    const { io } = setup();
    expect((await runCaptured(['compact', '--transcript', 'missing.jsonl'], io)).code).toBe(3);
  });

  it.each([
    ['empty.jsonl', ''],
    ['object.json', '{"not":"messages"}'],
    ['array.json', '[]'],
  ])('a file with no conversation (%s) exits 2 and says what was expected', async (name, text) => {
    const { io } = setup();
    const file = join(io.homedir, name);
    writeFileSync(file, text);
    for (const args of [
      ['compact', '--transcript', file, '--json'],
      ['session', 'update', '--transcript', file],
    ]) {
      const run = await runCaptured(args, io);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/holds no conversation messages \(expected a Claude Code \.jsonl/);
    }
  });

  it('a plain JSON array of { role, content } messages (no ids, string content) compacts too', async () => {
    const { io } = setup();
    const file = join(io.homedir, 'plain.json');
    const messages = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `turn ${i}: ${filler(2_000)}`,
    }));
    writeFileSync(file, JSON.stringify(messages));
    const run = await runCaptured(['compact', '--transcript', file, '--json'], io);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data).toMatchObject({
      sessionId: 'plain',
      method: 'truncation',
      totalMessages: 40,
      boundary: { id: null, index: -1 },
      kept: { end: 39, lastId: 'm39' },
    });
    expect(data.kept.tokens).toBeLessThanOrEqual(40_000);
    expect(data.kept.start).toBeGreaterThan(0);
  });
});

describe('engram session update, then engram compact on the grown transcript', () => {
  it('notes taken while a tool call awaited its result: the cut moves before that call', async () => {
    const { io, t, file, dir, messages } = setup();
    io.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    io.env.ANTHROPIC_API_KEY = 'test-key';
    // The transcript as it stood when round 5's Read was called and its result not yet written.
    const callLine = t.lines.findIndex((l) => JSON.stringify(l).includes('"toolu_cli_5"'));
    const early = join(io.homedir, 'early.jsonl');
    writeFileSync(
      early,
      `${t.lines
        .slice(0, callLine + 1)
        .map((l) => JSON.stringify(l))
        .join('\n')}\n`,
    );
    const notesPath = join(dir, 'notes.md');
    server.push(
      {
        toolUse: [
          {
            name: 'edit',
            input: {
              path: notesPath,
              old_string: `${CURRENT_DESC}\n`,
              new_string: `${CURRENT_DESC}\nReading module 5.\n`,
            },
          },
        ],
      },
      { text: 'ok' },
    );
    const update = await runCaptured(['session', 'update', '--transcript', early, '--force'], io);
    expect(update.code).toBe(0);
    const run = await runCaptured(['compact', '--transcript', file, '--json', '--no-model'], io);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout);
    const call = messages.findIndex((m) => JSON.stringify(m.content).includes('"toolu_cli_5"'));
    expect(messages[call]!.role).toBe('assistant');
    expect(data.method).toBe('notes');
    expect(data.boundary).toEqual({ id: messages[call]!.id, index: call });
    expect(data.kept.start).toBeLessThanOrEqual(call);
    expect(data.kept.reasons.join('\n')).toMatch(/cut moved from #\d+ to #\d+/);
    expect(data.warnings).toEqual([
      expect.stringMatching(/the boundary is the nearest earlier message they cover/),
    ]);
    expect(run.stderr).toMatch(/the boundary is the nearest earlier message they cover/);
  });
});

describe('engram session update', () => {
  it('without a model: exits 1 and says how to configure one', async () => {
    const { io, file } = setup();
    const run = await runCaptured(['session', 'update', '--transcript', file], io);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/No model is configured/);
  });

  it('runs the forked updater against the configured model and writes the notes', async () => {
    const { io, file, dir } = setup();
    io.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    io.env.ANTHROPIC_API_KEY = 'test-key';
    const notesPath = join(dir, 'notes.md');
    server.push(
      {
        toolUse: [
          {
            name: 'edit',
            input: {
              path: notesPath,
              old_string: `${CURRENT_DESC}\n`,
              new_string: `${CURRENT_DESC}\nAll 8 modules read; port still ignored.\n`,
            },
          },
        ],
      },
      { text: 'ok' },
    );
    const run = await runCaptured(['session', 'update', '--transcript', file, '--json'], io);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout);
    expect(data).toMatchObject({ status: 'updated', notesPath, repairs: [], selfReferences: [] });
    expect(readFileSync(notesPath, 'utf8')).toContain('All 8 modules read; port still ignored.');
    // The transcript's thinking (and its signatures) never reach engram's model.
    expect(server.requests[0]!.rawBody).toContain('Reading module 3.');
    expect(server.requests[0]!.rawBody).not.toContain('look at module 3');
    // The session is recorded under the project it ran in (the transcript's cwd).
    expect(JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8'))).toMatchObject({
      projectRoot: '/home/USER/project',
    });
    const again = await runCaptured(['session', 'update', '--transcript', file], io);
    expect(again.stdout).toMatch(/^skipped: context grew 0 tokens/);
  });
});

describe('engram session away', () => {
  it('prints the summary, or {sessionId, summary} with --json, and reads --transcript from --cwd', async () => {
    const { io, t } = setup();
    io.env.ANTHROPIC_BASE_URL = server.anthropicBaseURL;
    io.env.ANTHROPIC_API_KEY = 'test-key';
    server.push({ text: 'You were tracing why the port is ignored; module 7 is next.' });
    const plain = await runCaptured(
      ['session', 'away', '--transcript', 'session.jsonl', '--cwd', io.homedir],
      {
        ...io,
        cwd: '/',
      },
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('You were tracing why the port is ignored; module 7 is next.\n');
    server.push({ text: 'Still on the port.' });
    const json = await runCaptured(
      ['session', 'away', '--transcript', join(io.homedir, 'session.jsonl'), '--json'],
      io,
    );
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      sessionId: t.sessionId,
      summary: 'Still on the port.',
    });
  });
});

describe('--cwd on the session commands', () => {
  it('notes, update, away and compact take --cwd and read a relative --transcript from it', async () => {
    const { io, t } = setup();
    const elsewhere = { ...io, cwd: dirname(io.homedir) };
    const here = basename(io.homedir); // a relative --cwd, taken once
    const compact = await runCaptured(
      ['compact', '--transcript', 'session.jsonl', '--cwd', here, '--no-model', '--json'],
      elsewhere,
    );
    expect(compact.code, compact.stderr).toBe(0);
    expect(JSON.parse(compact.stdout).sessionId).toBe(t.sessionId);
    const notes = await runCaptured(['session', 'notes', t.sessionId, '--cwd', here], elsewhere);
    expect([notes.code, notes.stderr]).toEqual([3, expect.stringMatching(/No notes for session/)]);
    const update = await runCaptured(
      ['session', 'update', '--transcript', 'session.jsonl', '--cwd', here],
      elsewhere,
    );
    expect([update.code, update.stderr]).toEqual([
      1,
      expect.stringMatching(/No model is configured/),
    ]);
    const withModel = {
      ...elsewhere,
      env: { ...io.env, ANTHROPIC_BASE_URL: server.anthropicBaseURL, ANTHROPIC_API_KEY: 'k' },
    };
    server.push({ text: 'On the port.' });
    const away = await runCaptured(
      ['session', 'away', '--transcript', 'session.jsonl', '--cwd', here],
      withModel,
    );
    expect(away.code, away.stderr).toBe(0);
    expect(away.stdout).toBe('On the port.\n');
  });
});
