import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Message } from 'engram/llm';
import { findSelfReferences } from 'engram/session';
import { describe, expect, it } from 'vitest';
import { CcTranscript, prose } from '../support/transcripts.js';
import { cli, env, firstHalf, notesPathOf, root, server, writeTool } from './support.js';

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

  it('notes that are a link or a FIFO are never read: not printed, and the read does not wait', async () => {
    const outside = join(root, 'outside-notes.txt');
    writeFileSync(outside, 'outside notes sentinel\n');
    const linked = notesPathOf('s-linked-notes');
    mkdirSync(dirname(linked), { recursive: true });
    symlinkSync(outside, linked);
    const viaLink = await cli(['session', 'notes', 's-linked-notes']);
    expect(viaLink.code).not.toBe(0);
    expect(viaLink.stdout).not.toContain('outside notes sentinel');
    expect(viaLink.stderr).toMatch(/symbolic link/);
    const fifo = notesPathOf('s-fifo-notes');
    mkdirSync(dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    const viaFifo = await cli(['session', 'notes', 's-fifo-notes']);
    expect(viaFifo.code).not.toBe(0);
    expect(viaFifo.stderr).toMatch(/not a regular file/);
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
    // 'stale', not 'timeout': the record was judged by its age at the first look, not waited out.
  });
});
