import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngramEnvironment } from '../config/index.js';
import type { ConversationPrefix, Message } from '../llm/types.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { assistantText, filler, toolRound, userText } from './__fixtures__/conversation.js';
import { parseTemplate } from './notes-structure.js';
import { DEFAULT_NOTES_SECTIONS, renderNotesTemplate } from './prompts.js';
import { readCursor, readSessionRecord, sessionPaths } from './session-store.js';
import { updateSessionNotes } from './update-notes.js';

let server: ScriptedModelServer;
let environment: EngramEnvironment;
const SESSION = 'c0ffee00-1111-2222-3333-444455556666';

beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  const home = mkdtempSync(join(tmpdir(), 'engram-notes-'));
  environment = { cwd: home, homedir: home, env: { ENGRAM_HOME: join(home, '.engram') } };
  server.requests.length = 0;
  expect(server.pending()).toBe(0);
});

/** A 12,000-token conversation that ends at a pause: past the start threshold. */
function longConversation(): Message[] {
  return [
    userText('The port from config.yaml is ignored. Fix it.'),
    ...toolRound([
      { name: 'read', input: { path: 'src/config.ts' }, result: filler(12_000, 'port;') },
    ]),
    assistantText('Found it: parseConfig drops `port` at src/config.ts:12.'),
  ];
}

function prefix(messages: Message[]): ConversationPrefix {
  return { system: 'You are a coding agent.', tools: [], messages };
}

const notesPath = () => sessionPaths(environment, SESSION).notes;
const CURRENT_DESC =
  '_Say what is in progress right now, what is finished, and the very next step still open._';

describe('updateSessionNotes', () => {
  it('below the start threshold: skipped, no model call, no file', async () => {
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix([userText('hi'), assistantText('hello')]),
    });
    expect(outcome.status).toBe('skipped');
    expect(server.requests).toHaveLength(0);
    expect(existsSync(notesPath())).toBe(false);
  });

  it('creates the notes from the template, lets the fork edit only them, advances the cursor', async () => {
    server.push(
      (req) => ({
        toolUse: [
          {
            name: 'edit',
            input: {
              path: notesPath(),
              old_string: `${CURRENT_DESC}\n`,
              new_string: `${CURRENT_DESC}\nFixing parseConfig dropping port (src/config.ts:12).\n`,
            },
          },
          // Anything but the notes file is refused at execution time.
          { name: 'write', input: { path: join(environment.homedir, 'evil.txt'), content: 'x' } },
        ],
        text: req.body.messages.length > 0 ? undefined : 'no messages?',
      }),
      { text: 'Notes are current.' },
    );
    const messages = longConversation();
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix(messages),
    });
    expect(outcome.status).toBe('updated');
    expect(outcome.fork).toMatchObject({ status: 'completed', toolCalls: 2, refusedCalls: 1 });
    expect(existsSync(join(environment.homedir, 'evil.txt'))).toBe(false);
    const notes = readFileSync(notesPath(), 'utf8');
    expect(notes).toContain('Fixing parseConfig dropping port (src/config.ts:12).');
    expect(parseTemplate(notes)).toEqual(DEFAULT_NOTES_SECTIONS);
    expect(outcome.repairs).toEqual([]);
    expect(outcome.selfReferences).toEqual([]);
    // The fork reused the host's prefix exactly, then appended its own instruction.
    const first = server.requests[0]!.body;
    expect(first.system).toEqual(expect.anything());
    expect(first.messages).toHaveLength(messages.length + 1);
    expect(JSON.stringify(first.messages.at(-1))).toContain('## Keep the structure exactly');
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual([
      'read',
      'write',
      'edit',
      'list',
      'grep',
    ]);
    const cursor = await readCursor(sessionPaths(environment, SESSION));
    expect(cursor).toMatchObject({ lastMessageId: messages.at(-1)!.id, updates: 1 });
    expect(cursor.tokensAtLastUpdate).toBe(outcome.decision!.contextTokens);
    // The running record is gone once the update is over.
    expect(existsSync(sessionPaths(environment, SESSION).running)).toBe(false);
    // The session records its project, so consolidation counts it for that project only.
    expect(await readSessionRecord(sessionPaths(environment, SESSION).dir)).toMatchObject({
      sessionId: SESSION,
      projectRoot: environment.cwd,
      cwd: environment.cwd,
    });
  });

  it.each([
    {
      what: 'the header line',
      old: `# Current State\n${CURRENT_DESC}\n`,
      replacement: `${CURRENT_DESC}\nFixing parseConfig; next: add a regression test.\n`,
      repair: 'deleted header "# Current State" restored',
      inPlace: true,
    },
    {
      what: 'the header and its italic line',
      old: `# Current State\n${CURRENT_DESC}\n`,
      replacement: 'Fixing parseConfig; next: add a regression test.\n',
      repair: 'missing section "# Current State" restored',
      inPlace: false,
    },
  ])('a scripted updater that deletes $what gets it restored, content kept', async (c) => {
    server.push(
      {
        toolUse: [
          {
            name: 'edit',
            input: { path: notesPath(), old_string: c.old, new_string: c.replacement },
          },
        ],
      },
      { text: 'done' },
    );
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix(longConversation()),
    });
    expect(outcome.status).toBe('updated');
    expect(outcome.repairs).toContain(c.repair);
    const notes = readFileSync(notesPath(), 'utf8');
    expect(parseTemplate(notes)).toEqual(DEFAULT_NOTES_SECTIONS);
    expect(notes).toContain('Fixing parseConfig; next: add a regression test.');
    // With the italic line still there, the content goes back under its own header.
    const current = notes.slice(
      notes.indexOf('# Current State'),
      notes.indexOf('# Task Specification'),
    );
    expect(current.includes('Fixing parseConfig')).toBe(c.inPlace);
  });

  it('an updater that writes "I am updating the session notes" is flagged', async () => {
    const text = renderNotesTemplate(DEFAULT_NOTES_SECTIONS).replace(
      `${CURRENT_DESC}\n`,
      `${CURRENT_DESC}\nI am updating the session notes with the port fix.\n`,
    );
    server.push(
      { toolUse: [{ name: 'write', input: { path: notesPath(), content: text } }] },
      { text: 'ok' },
    );
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix(longConversation()),
    });
    expect(outcome.selfReferences).toHaveLength(1);
    expect(outcome.selfReferences[0]!.text).toBe(
      'I am updating the session notes with the port fix.',
    );
  });

  it('oversized notes: the updater is told which sections to condense', async () => {
    const paths = sessionPaths(environment, SESSION);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(
      paths.notes,
      renderNotesTemplate(DEFAULT_NOTES_SECTIONS).replace(
        '_Append one terse line per step taken, oldest first._\n',
        `_Append one terse line per step taken, oldest first._\n${'- step\n'.repeat(2_000)}`,
      ),
    );
    server.push({ text: 'nothing to add' });
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix(longConversation()),
    });
    expect(outcome.sizeBefore!.oversized.map((s) => s.title)).toEqual(['Worklog']);
    const prompt = JSON.stringify(server.requests[0]!.body.messages.at(-1));
    expect(prompt).toContain('Reminder: these sections are over the 2000-token limit');
    expect(prompt).toContain('\\"Worklog\\": about');
  });

  it('another update running: reports busy without calling the model', async () => {
    const paths = sessionPaths(environment, SESSION);
    mkdirSync(paths.dir, { recursive: true });
    writeFileSync(
      paths.running,
      JSON.stringify({ startedAt: Date.now() - 2_000, pid: process.pid, host: hostname() }),
    );
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix(longConversation()),
    });
    expect(outcome.status).toBe('busy');
    expect(outcome.reason).toMatch(/started 2 s ago/);
    expect(server.requests).toHaveLength(0);
  });

  it('a failing model leaves the cursor where it was (the next turn retries)', async () => {
    server.push({ error: { status: 400, message: 'bad request' } });
    const outcome = await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix(longConversation()),
    });
    expect(outcome.status).toBe('failed');
    expect(outcome.reason).toMatch(/bad request/);
    expect(await readCursor(sessionPaths(environment, SESSION))).toEqual({});
    expect(existsSync(sessionPaths(environment, SESSION).running)).toBe(false);
  });

  it('a user template replaces the default', async () => {
    const root = join(environment.env.ENGRAM_HOME!, 'session-memory');
    mkdirSync(root, { recursive: true });
    writeFileSync(
      join(root, 'template.md'),
      '# Goal\n_What we are doing._\n\n# Next\n_The next step._\n',
    );
    server.push({ text: 'ok' });
    await updateSessionNotes({
      environment,
      sessionId: SESSION,
      model: scriptedModel(server),
      prefix: prefix(longConversation()),
    });
    expect(readFileSync(notesPath(), 'utf8')).toBe(
      '# Goal\n_What we are doing._\n\n# Next\n_The next step._\n',
    );
  });

  it('refuses a session id that could leave the folder', async () => {
    await expect(
      updateSessionNotes({
        environment,
        sessionId: '../x',
        model: scriptedModel(server),
        prefix: prefix([]),
      }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

afterAll(() => {
  if (environment) rmSync(environment.homedir, { recursive: true, force: true });
});
