import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngramEnvironment } from '../config/index.js';
import { estimateMessagesTokens } from '../llm/tokens.js';
import type { Message } from '../llm/types.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { fakeClock } from './__fixtures__/clock.js';
import {
  assistantText,
  checkCut,
  filler,
  toolRound,
  userText,
} from './__fixtures__/conversation.js';
import { awaySummary, limitSentences } from './away-summary.js';
import { compactSession } from './compact-session.js';
import { compactByTruncation } from './compaction.js';
import { DEFAULT_NOTES_SECTIONS, renderNotesTemplate } from './prompts.js';
import { readCursor, type SessionPaths, sessionPaths, writeCursor } from './session-store.js';
import { decideNotesUpdate } from './thresholds.js';

let server: ScriptedModelServer;
let environment: EngramEnvironment;
let paths: SessionPaths;
const SESSION = 'sess-compact-1';
const template = renderNotesTemplate(DEFAULT_NOTES_SECTIONS);
const CURRENT_DESC =
  '_Say what is in progress right now, what is finished, and the very next step still open._';

beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  const home = mkdtempSync(join(tmpdir(), 'engram-compact-'));
  environment = { cwd: home, homedir: home, env: { ENGRAM_HOME: join(home, '.engram') } };
  paths = sessionPaths(environment, SESSION);
  mkdirSync(paths.dir, { recursive: true });
  server.requests.length = 0;
});

/** 30 rounds: question, tool call + 1,500-token result, answer (~60,000 tokens). */
function history(): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < 30; i++) {
    out.push(userText(`step ${i}: check the next module`));
    out.push(
      ...toolRound(
        [{ name: 'read', input: { path: `src/m${i}.ts` }, result: filler(1_500) }],
        `Reading m${i}.`,
      ),
    );
    out.push(assistantText(`m${i} is fine.`));
  }
  return out;
}

const filled = template.replace(
  `${CURRENT_DESC}\n`,
  `${CURRENT_DESC}\nChecking modules; m20 next.\n`,
);

describe('compactSession', () => {
  it('with notes: notes + the messages after what they cover; nothing waited', async () => {
    const messages = history();
    writeFileSync(paths.notes, filled);
    await writeCursor(paths, { tokensAtLastUpdate: 40_000, lastMessageId: messages[59]!.id });
    const result = await compactSession({ environment, sessionId: SESSION, messages });
    expect(result.method).toBe('notes');
    expect(result.wait.outcome).toBe('none_running');
    expect(result.boundary.index).toBe(59);
    expect(result.kept.start).toBe(60);
    expect(result.kept.firstId).toBe(messages[60]!.id);
    expect(result.messages[0]!.content[0]).toMatchObject({ type: 'text' });
    expect(JSON.stringify(result.messages[0])).toContain('Checking modules; m20 next.');
    expect(result.messages.slice(1)).toEqual(messages.slice(60));
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(checkCut(messages, result.kept.start)).toEqual([]);
  });

  it('rebases the notes cursor so updates resume after the context shrank (not for a preview)', async () => {
    const messages = history();
    writeFileSync(paths.notes, filled);
    const before = {
      tokensAtLastUpdate: estimateMessagesTokens(messages.slice(0, 100)),
      lastMessageId: messages[99]!.id,
    };
    await writeCursor(paths, before);
    await compactSession({ environment, sessionId: SESSION, messages, record: false });
    expect(await readCursor(paths)).toEqual(before);
    const result = await compactSession({ environment, sessionId: SESSION, messages });
    const cursor = await readCursor(paths);
    expect(cursor.lastMessageId).toBe(messages[99]!.id);
    // What the notes do not cover yet (messages 100+) still counts as growth after compaction.
    const growth = estimateMessagesTokens(result.messages) - cursor.tokensAtLastUpdate!;
    expect(growth).toBe(estimateMessagesTokens(messages.slice(100)));
    const next = [...result.messages, userText('and now?'), assistantText(filler(5_000))];
    expect(decideNotesUpdate({ messages: next, cursor }).kind).toBe('update');
  });

  it('with an update marked running for 61 s, compaction proceeds immediately', async () => {
    writeFileSync(paths.notes, filled);
    const clock = fakeClock();
    writeFileSync(
      paths.running,
      JSON.stringify({ startedAt: clock.now() - 61_000, pid: process.pid, host: hostname() }),
    );
    const result = await compactSession({
      environment,
      sessionId: SESSION,
      messages: history(),
      wait: { clock },
    });
    expect(result.wait).toEqual({ outcome: 'stale', waitedMs: 0 });
    expect(clock.sleeps).toEqual([]);
    expect(result.method).toBe('notes');
  });

  it('with the real clock too: a 61 s-old record costs no waiting', async () => {
    writeFileSync(paths.notes, filled);
    writeFileSync(
      paths.running,
      JSON.stringify({ startedAt: Date.now() - 61_000, pid: process.pid, host: hostname() }),
    );
    const result = await compactSession({ environment, sessionId: SESSION, messages: history() });
    // Stale at the first look: judged by the record's age, not by waiting for it.
    expect(result.wait.outcome).toBe('stale');
  });

  it('with one running for 5 s that never ends, compaction proceeds after at most 15 s', async () => {
    writeFileSync(paths.notes, filled);
    const clock = fakeClock();
    writeFileSync(
      paths.running,
      JSON.stringify({ startedAt: clock.now() - 5_000, pid: process.pid, host: hostname() }),
    );
    const result = await compactSession({
      environment,
      sessionId: SESSION,
      messages: history(),
      wait: { clock },
    });
    expect(result.wait.outcome).toBe('timeout');
    // Virtual time: the fake clock's sleeps add up to exactly the 15 s wait limit.
    expect(result.wait.waitedMs).toBe(15_000);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(15_000);
    expect(result.method).toBe('notes');
  });

  it('notes only the template and no model: truncation, and it says why', async () => {
    writeFileSync(paths.notes, template);
    const messages = history();
    const result = await compactSession({ environment, sessionId: SESSION, messages });
    expect(result.method).toBe('truncation');
    expect(result.why).toBe('the notes hold only the template and no model is configured');
    expect(result.kept.tokens).toBeLessThanOrEqual(40_000);
    expect(result.kept.start).toBeGreaterThan(0);
    expect(JSON.stringify(result.messages[0])).toContain(
      `${result.kept.start} earlier messages were removed`,
    );
    expect(checkCut(messages, result.kept.start)).toEqual([]);
  });

  it('no notes file and a model: the model summary replaces the history', async () => {
    server.push({ text: '## Task\nCheck every module.\n## Next\nm30.' });
    const messages = history();
    const result = await compactSession({
      environment,
      sessionId: 'no-notes-here',
      messages,
      model: scriptedModel(server),
    });
    expect(result.method).toBe('summary');
    expect(result.why).toBe('no notes file; the model summarized the conversation');
    expect(JSON.stringify(result.messages[0])).toContain('Check every module.');
    const request = server.requests[0]!.body;
    expect(request.messages).toHaveLength(messages.length + 1);
    expect(JSON.stringify(request.messages.at(-1))).toContain(
      '## Summarize the conversation for a fresh start',
    );
    expect(result.kept.tokens).toBeGreaterThanOrEqual(10_000);
  });

  it('empty notes and a failing model: truncation, naming the failure', async () => {
    writeFileSync(paths.notes, '');
    server.push({ error: { status: 400, message: 'context too long' } });
    const result = await compactSession({
      environment,
      sessionId: SESSION,
      messages: history(),
      model: scriptedModel(server),
    });
    expect(result.method).toBe('truncation');
    expect(result.why).toMatch(
      /^the notes file is empty and the summary failed \(.*context too long/,
    );
  });

  it('long sections are shortened with a marker; a boundary not in this history is reported', async () => {
    const worklog = Array.from({ length: 500 }, (_, i) => `- checked m${i} ${'y'.repeat(20)}`).join(
      '\n',
    );
    writeFileSync(
      paths.notes,
      filled.replace(
        '_Append one terse line per step taken, oldest first._',
        (d) => `${d}\n${worklog}`,
      ),
    );
    await writeCursor(paths, {
      tokensAtLastUpdate: 1,
      lastMessageId: 'gone-after-an-earlier-compaction',
    });
    const result = await compactSession({ environment, sessionId: SESSION, messages: history() });
    expect(result.truncatedSections).toEqual(['Worklog']);
    expect(JSON.stringify(result.messages[0])).toContain('section shortened for compaction');
    expect(result.boundary.index).toBe(-1);
    expect(result.warnings[0]).toMatch(/not in this history/);
    expect(result.kept.tokens).toBeGreaterThanOrEqual(10_000);
  });
});

describe('awaySummary', () => {
  it('asks the model with the notes and the last 30 messages, returns at most 3 sentences', async () => {
    server.push({
      text: 'You are fixing the config loader. Next: add a regression test. Then ship. And more.',
    });
    const messages = history();
    const summary = await awaySummary(messages, filled, { model: scriptedModel(server) });
    expect(summary).toBe(
      'You are fixing the config loader. Next: add a regression test. Then ship.',
    );
    const prompt = JSON.stringify(server.requests[0]!.body.messages);
    expect(prompt).toContain('Checking modules; m20 next.');
    expect(prompt).toContain('m29 is fine.');
    // 4 messages a round: the last 30 begin inside round 22 (its tool result).
    expect(prompt).not.toContain('step 22: check');
    expect(prompt).toContain('m22 is fine.');
    expect(prompt).toContain('step 23: check');
  });

  it('limitSentences keeps decimals and paths inside a sentence', () => {
    expect(limitSentences('Bumped to v1.2.3 in src/a.ts. Next: run tests.')).toBe(
      'Bumped to v1.2.3 in src/a.ts. Next: run tests.',
    );
  });
});

describe('compactByTruncation', () => {
  it('a history within the budget comes back unchanged, without a notice claiming removals', () => {
    const messages: Message[] = [
      { id: 'a', role: 'user', content: [{ type: 'text', text: 'short question' }] },
      { id: 'b', role: 'assistant', content: [{ type: 'text', text: 'short answer' }] },
    ];
    const result = compactByTruncation(messages, 'no notes, no model');
    expect(result.messages).toEqual(messages);
    expect(result.removed.count).toBe(0);
    expect(result.tokensAfter).toBe(result.tokensBefore);
    const over = compactByTruncation(messages, 'tiny budget', 4);
    expect(over.messages[0]!.id).toBe('engram-compact-truncation');
    expect(over.removed.count).toBe(1);
  });
});
