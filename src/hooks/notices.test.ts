import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NOTICES, queueNotices, recallNotice, sessionNotice, takeNotice } from './notices.js';

const SESSION = '0b8f6f0e-1111-4222-8333-944455556666';

describe('notice policy', () => {
  it('queues each kind once per session and shows one line at a time', () => {
    const empty = { shown: [], pending: [] };
    const queued = queueNotices(empty, [
      NOTICES.noModel('Set a key.'),
      NOTICES.noModel('Set a key.'),
      NOTICES.sessionBudget(),
    ]);
    expect(queued.pending.map((n) => n.kind)).toEqual(['no-model', 'session-budget']);
    const first = takeNotice(queued);
    expect(first.show).toMatch(/^engram: no model is configured/);
    const second = takeNotice(queueNotices(first.state, [NOTICES.noModel('again')]));
    expect(second.show).toMatch(/memory budget is spent/);
    expect(takeNotice(second.state).show).toBeUndefined();
  });

  it('every notice is one line that ends in what to do', () => {
    const all = [
      NOTICES.noModel('Set ANTHROPIC_API_KEY.'),
      NOTICES.selectorFailed('the selector answered prose\nnot JSON'),
      NOTICES.recallTimeout(5000),
      NOTICES.sessionBudget(),
      NOTICES.notesSkipped('no model'),
      NOTICES.extractionFailed('HTTP 500'),
      NOTICES.autoMemoryOff('/home/u/.claude/settings.json'),
    ];
    for (const notice of all) {
      expect(notice.text).not.toContain('\n');
      expect(notice.text.length).toBeLessThan(300);
      expect(notice.text).toMatch(/^engram: /);
    }
  });

  it('a recall that fell back or spent its budget raises a notice; a plain one does not', () => {
    const base = { fallbackUsed: false, fallbackReason: null, budgetExhausted: false };
    // biome-ignore lint/suspicious/noExplicitAny: only the fields the policy reads.
    const shape = (extra: object) => ({ ...base, ...extra }) as any;
    expect(recallNotice(shape({}))).toBeUndefined();
    expect(recallNotice(shape({ fallbackUsed: true, fallbackReason: 'prose' }))?.kind).toBe(
      'selector-failed',
    );
    expect(recallNotice(shape({ budgetExhausted: true }))?.kind).toBe('session-budget');
  });
});

describe('sessionNotice', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'engram-notices-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('keeps a queued notice across processes until a hook can show it', async () => {
    const env = { cwd: root, env: { ENGRAM_HOME: join(root, 'home') }, homedir: root };
    const notes = NOTICES.notesSkipped('no model is configured');
    expect(await sessionNotice(env, SESSION, [notes], { canShow: false })).toBeUndefined();
    expect(await sessionNotice(env, SESSION, [])).toBe(notes.text);
    expect(await sessionNotice(env, SESSION, [notes])).toBeUndefined();
    // Another session starts fresh.
    expect(await sessionNotice(env, SESSION.replace('0b8f', '1c9a'), [notes])).toBe(notes.text);
  });
});
