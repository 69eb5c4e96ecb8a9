import { readFileSync } from 'node:fs';
import { type Message, recall, renderInjection } from 'engram';
import { MAX_MEMORY_BYTES, MAX_MEMORY_LINES, MAX_SESSION_BYTES } from 'engram/inject';
import { describe, expect, it } from 'vitest';
import { DAY, memory, recallJson, sandbox, userText } from '../recall/support.js';

describe('budgets', () => {
  it('a 50 KB memory injects at most 4,096 bytes ending at a newline, plus the note', async () => {
    const s = sandbox();
    const lines = Array.from(
      { length: 1000 },
      (_, i) => `Step ${i}: fold the croissant dough, rest it ${i % 7} minutes`,
    );
    const body = `${lines.join('\n')}\n`;
    const path = memory(s.dir, 'croissant-lamination.md', {
      description: 'Croissant dough lamination steps and resting times',
      body,
    });
    const full = readFileSync(path, 'utf8');
    expect(Buffer.byteLength(full)).toBeGreaterThan(50_000);
    const out = await recallJson(
      ['how do I laminate croissant dough', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(out.selected).toHaveLength(1);
    const m = out.selected[0];
    expect(m.truncated).toBe(true);
    expect(m.bytes).toBeLessThanOrEqual(MAX_MEMORY_BYTES);
    const start = out.injection.indexOf('---\nname: croissant-lamination');
    const kept = out.injection.slice(start, start + m.bytes);
    expect(full.startsWith(kept)).toBe(true);
    expect(kept.endsWith('\n')).toBe(true);
    const rest = out.injection.slice(start + m.bytes);
    // The note names the full file, right after the kept prefix.
    const note = rest.slice(0, rest.indexOf('\n') + 1);
    expect(note).toContain(path);
    expect(rest.slice(note.length)).toMatch(/^<\/memory>\n/);
  });

  it('a memory of many short lines is cut at 200 lines', async () => {
    const s = sandbox();
    const body = Array.from({ length: 400 }, (_, i) => `${i}`).join('\n');
    memory(s.dir, 'seed-list.md', { description: 'Seed packet list for the spring garden', body });
    const out = await recallJson(
      ['which seed packets for the spring garden', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(out.selected[0].truncated).toBe(true);
    const start = out.injection.indexOf('---\nname: seed-list');
    const kept: string = out.injection.slice(start, start + out.selected[0].bytes);
    expect(kept.split('\n').length - 1).toBeLessThanOrEqual(MAX_MEMORY_LINES);
    expect(kept.endsWith('\n')).toBe(true);
  });

  it('the 60 KiB session cap stops further injections, says so once, and holds', async () => {
    const s = sandbox();
    const filler = `${'Pack the tent pegs and the rain fly before the hike. '.repeat(70)}\n`;
    for (let i = 0; i < 40; i++)
      memory(s.dir, `hike-${String(i).padStart(2, '0')}.md`, {
        description: `Hiking trip packing list for the mountain hike, part ${i}`,
        body: filler.repeat(2),
      });
    const messages: Message[] = [];
    const cumulative: number[] = [];
    let notices = 0;
    let stoppedAt = -1;
    for (let turn = 0; turn < 8; turn++) {
      const r = await recall({ dir: s.dir, query: 'packing list for the mountain hike', messages });
      cumulative.push(r.shape.sessionCumulativeBytes);
      expect(r.shape.sessionCumulativeBytes).toBeLessThanOrEqual(MAX_SESSION_BYTES);
      if (r.text.includes('<recall-stopped>')) notices++;
      if (r.shape.budgetExhausted && stoppedAt < 0) stoppedAt = turn;
      if (stoppedAt >= 0 && turn > stoppedAt) {
        expect(r.selected).toEqual([]);
        expect(r.text).toBe('');
      }
      messages.push(userText(`u${turn}`, 'packing list for the mountain hike'));
      if (r.text) messages.push(userText(`r${turn}`, r.text));
      messages.push({ id: `a${turn}`, role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    }
    expect(MAX_SESSION_BYTES).toBe(61_440);
    expect(stoppedAt).toBeGreaterThan(0);
    expect(notices).toBe(1);
    expect(Math.max(...cumulative)).toBeGreaterThan(
      MAX_SESSION_BYTES - 5 * (MAX_MEMORY_BYTES + 1024),
    );
  });
});

describe('frozen headers', () => {
  it('re-rendering an injected conversation two days later gives identical bytes', async () => {
    const s = sandbox();
    const t0 = Date.parse('2031-04-10T09:00:00Z');
    memory(s.dir, 'visa-photo.md', {
      description: 'Visa photo must be 35x45 mm with a white background',
      ageDays: 0,
      nowMs: t0,
    });
    memory(s.dir, 'visa-fees.md', {
      description: 'Visa application fee is paid by card at the consulate',
      ageDays: 5,
      nowMs: t0,
    });
    const q = 'prepare the visa application photo and fee';
    const first = await recall({ dir: s.dir, query: q, now: t0 });
    expect(first.selected).toHaveLength(2);
    const fresh = first.selected.find((m) => m.file === 'visa-photo.md')!;
    const old = first.selected.find((m) => m.file === 'visa-fees.md')!;
    expect(fresh.header).toContain('saved today');
    expect(old.header).toContain('5 days old');
    expect(old.header).toMatch(/Memory: .*visa-fees\.md:$/);
    const conversation: Message[] = [userText('u1', q), userText('r1', first.text)];
    const stored = JSON.parse(JSON.stringify(first.injection));
    // Two days later: the stored turn renders to the same bytes; the next turn adds nothing new.
    const later = await recall({ dir: s.dir, query: q, now: t0 + 2 * DAY, messages: conversation });
    expect(renderInjection(stored)).toBe(first.text);
    expect(later.selected).toEqual([]);
    expect(later.shape.surfacedExcluded).toBe(2);

    // The CLI with --now: the same time gives the same bytes; two days later the headers move.
    const at = new Date(t0).toISOString();
    const a = await recallJson([q, '--dir', s.dir, '--model', 'offline', '--now', at], s.env);
    const b = await recallJson([q, '--dir', s.dir, '--model', 'offline', '--now', at], s.env);
    expect(a.injection).toBe(b.injection);
    expect(a.injection).toBe(first.text);
    const c = await recallJson(
      [q, '--dir', s.dir, '--model', 'offline', '--now', new Date(t0 + 2 * DAY).toISOString()],
      s.env,
    );
    expect(c.selected.find((m: { file: string }) => m.file === 'visa-fees.md').header).toContain(
      '7 days old',
    );
    expect(a.injection.startsWith('<system-reminder>')).toBe(true);
    expect(a.injection.endsWith('</system-reminder>')).toBe(true);
  });
});
