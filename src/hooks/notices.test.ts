import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../util/file-lock.js';
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

  it('answers a prompt with nothing raised or queued without the lock; a queued notice waits for it', async () => {
    const env = { cwd: root, env: { ENGRAM_HOME: join(root, 'home') }, homedir: root };
    const notes = NOTICES.notesSkipped('no model is configured');
    const queuedSession = SESSION.replace('0b8f', '1c9a');
    expect(await sessionNotice(env, queuedSession, [notes], { canShow: false })).toBeUndefined();
    const lockOf = (session: string) =>
      join(root, 'home', 'hooks', 'notices', `${session}.json.lock`);
    // Another process holds each session's lock until `release`.
    let release!: () => void;
    const holding = new Promise<void>((r) => {
      release = r;
    });
    const order: string[] = [];
    const held = [SESSION, queuedSession].map(
      (session) =>
        new Promise<void>((taken) => {
          void withFileLock(lockOf(session), async () => {
            taken();
            await holding;
            order.push(`released ${session}`);
          });
        }),
    );
    await Promise.all(held);
    expect(await sessionNotice(env, SESSION, [])).toBeUndefined();
    order.push('quiet prompt answered');
    const waiting = sessionNotice(env, queuedSession, []).then((line) => {
      order.push('queued notice shown');
      return line;
    });
    release();
    expect(await waiting).toBe(notes.text);
    // The quiet prompt was answered while both locks were held; the queued one only after.
    expect(order[0]).toBe('quiet prompt answered');
    expect(order.indexOf(`released ${queuedSession}`)).toBeLessThan(
      order.indexOf('queued notice shown'),
    );
    // Shown once: the next quiet prompt of that session has nothing to say.
    expect(await sessionNotice(env, queuedSession, [])).toBeUndefined();
  });
});
