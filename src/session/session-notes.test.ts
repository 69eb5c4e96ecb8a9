import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { assistantText, filler, toolRound, userText } from './__fixtures__/conversation.js';
import { createSessionNotes } from './session-notes.js';
import { sessionPaths } from './session-store.js';
import type { NotesUpdateOutcome } from './update-notes.js';

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(async () => server.close());

const CURRENT_DESC =
  '_Say what is in progress right now, what is finished, and the very next step still open._';

function environment() {
  const home = mkdtempSync(join(tmpdir(), 'engram-handle-'));
  return { cwd: home, homedir: home, env: { ENGRAM_HOME: join(home, '.engram') } };
}

function conversation(rounds: number): Message[] {
  const out: Message[] = [userText('Audit every module for the port bug.')];
  for (let i = 0; i < rounds; i++) {
    out.push(
      ...toolRound(
        [{ name: 'read', input: { path: `m${i}.ts` }, result: filler(3_000) }],
        `Reading m${i}.`,
      ),
    );
    out.push(assistantText(`m${i} is clean.`), userText(`next ${i}`));
  }
  return out;
}

describe('createSessionNotes', () => {
  it('compaction right after onTurnEnd (the update not even started yet) waits for it and uses its notes', async () => {
    const env = environment();
    const notesPath = sessionPaths(env, 's-now').notes;
    server.push(
      {
        delayMs: 200,
        toolUse: [
          {
            name: 'edit',
            input: {
              path: notesPath,
              old_string: `${CURRENT_DESC}\n`,
              new_string: `${CURRENT_DESC}\nm0-m5 clean; m6 next.\n`,
            },
          },
        ],
      },
      { text: 'ok' },
    );
    const notes = createSessionNotes({
      environment: env,
      sessionId: 's-now',
      model: scriptedModel(server),
    });
    const messages = conversation(6);
    notes.onTurnEnd({ tools: [], messages });
    const compacted = await notes.compact(messages);
    expect(compacted.method).toBe('notes');
    expect(compacted.wait.outcome).toBe('finished');
    expect(compacted.wait.waitedMs).toBeGreaterThan(0);
    expect(JSON.stringify(compacted.messages[0])).toContain('m0-m5 clean; m6 next.');
  });

  it('an in-process update that never ends holds compaction at most the wait timeout', async () => {
    const env = environment();
    server.push({ delayMs: 1_500, text: 'late' });
    const notes = createSessionNotes({
      environment: env,
      sessionId: 's-hang',
      model: scriptedModel(server),
      wait: { timeoutMs: 300, pollMs: 20 },
    });
    const messages = conversation(6);
    notes.onTurnEnd({ tools: [], messages });
    const compacted = await notes.compact(messages);
    // Timed out, not finished: compaction went on without the update's late answer.
    expect(compacted.wait.outcome).toBe('timeout');
    await notes.drain(60_000);
  });

  it('onTurnEnd returns at once; compaction waits for the running update and uses its notes', async () => {
    const env = environment();
    const notesPath = sessionPaths(env, 's-1').notes;
    server.push(
      {
        delayMs: 300,
        toolUse: [
          {
            name: 'edit',
            input: {
              path: notesPath,
              old_string: `${CURRENT_DESC}\n`,
              new_string: `${CURRENT_DESC}\nm0-m5 clean; m6 next.\n`,
            },
          },
        ],
      },
      { text: 'ok' },
    );
    const outcomes: NotesUpdateOutcome[] = [];
    const notes = createSessionNotes({
      environment: env,
      sessionId: 's-1',
      model: scriptedModel(server),
      wait: { pollMs: 50 },
      onUpdate: (o) => outcomes.push(o),
    });
    const messages = conversation(6);
    notes.onTurnEnd({ tools: [], messages });
    // The turn ends without waiting: the update runs in the background and has not finished yet.
    expect(outcomes).toEqual([]);
    // Let the update claim its slot before compacting, as a later turn would.
    const record = sessionPaths(env, 's-1').running;
    for (let i = 0; i < 200 && !existsSync(record); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(record)).toBe(true);
    const result = await notes.compact(messages);
    expect(result.wait.outcome).toBe('finished');
    expect(result.wait.waitedMs).toBeGreaterThan(0);
    expect(result.method).toBe('notes');
    expect(JSON.stringify(result.messages[0])).toContain('m0-m5 clean; m6 next.');
    expect(await notes.drain(60_000)).toBe(true);
    expect(outcomes.map((o) => o.status)).toEqual(['updated']);
  });

  it('turns ending during an update are coalesced into one follow-up with the newest conversation', async () => {
    const env = environment();
    server.push({ delayMs: 200, text: 'first' }, { text: 'second' });
    const outcomes: NotesUpdateOutcome[] = [];
    const notes = createSessionNotes({
      environment: env,
      sessionId: 's-2',
      model: scriptedModel(server),
      onUpdate: (o) => outcomes.push(o),
    });
    notes.onTurnEnd({ tools: [], messages: conversation(4) });
    notes.onTurnEnd({ tools: [], messages: conversation(5) });
    const latest = conversation(7);
    notes.onTurnEnd({ tools: [], messages: latest });
    expect(await notes.drain(60_000)).toBe(true);
    expect(outcomes.map((o) => o.status)).toEqual(['updated', 'updated']);
    // The second conversation was dropped: the follow-up took the newest one.
    expect(outcomes[1]!.cursor!.lastMessageId).toBe(latest.at(-1)!.id);
    expect(outcomes[1]!.decision!.contextTokens).toBeGreaterThan(
      outcomes[0]!.decision!.contextTokens,
    );
    expect(readFileSync(sessionPaths(env, 's-2').notes, 'utf8')).toContain('# Current State');
  });

  it('without a model: no notes, compaction truncates, background failures never throw', async () => {
    const env = environment();
    const notes = createSessionNotes({ environment: env, sessionId: 's-3' });
    notes.onTurnEnd({ tools: [], messages: conversation(6) });
    expect(await notes.drain(100)).toBe(true);
    const result = await notes.compact(conversation(6));
    expect(result.method).toBe('truncation');
    await expect(notes.away(conversation(1))).rejects.toMatchObject({ code: 'no_model' });
    const failures: NotesUpdateOutcome[] = [];
    const bad = createSessionNotes({
      environment: env,
      sessionId: '../bad',
      model: scriptedModel(server),
      onUpdate: (o) => failures.push(o),
    });
    bad.onTurnEnd({ tools: [], messages: conversation(6) });
    expect(await bad.drain(60_000)).toBe(true);
    expect(failures.map((f) => f.status)).toEqual(['failed']);
    expect(failures[0]!.reason).toMatch(/Invalid session id/);
  });
});
