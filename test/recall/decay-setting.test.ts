/**
 * The per-type decay constants are configurable where every door reads configuration: the
 * `recallDecay` setting (any settings file; it changes an order, not where data goes), merged
 * over DEFAULT_DECAY field by field, and `createEngram({ decay })` for a library host.
 */
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DECAY, decayFromSettings } from '../../src/recall/decay.js';
import { createEngram } from '../../src/runtime/create-engram.js';
import { fixedClock } from '../../src/util/clock.js';

describe('decayFromSettings', () => {
  it('is the default without a setting', () => {
    expect(decayFromSettings(undefined)).toEqual({ decay: DEFAULT_DECAY, problems: [] });
  });

  it('takes each given constant and keeps the default for the rest', () => {
    const { decay, problems } = decayFromSettings({
      halfLifeDays: { project: 30 },
      reference: { unusedAfterDays: 0 },
    });
    expect(problems).toEqual([]);
    expect(decay).toEqual({
      halfLifeDays: { ...DEFAULT_DECAY.halfLifeDays, project: 30 },
      reference: { ...DEFAULT_DECAY.reference, unusedAfterDays: 0 },
    });
  });

  it('never takes a value that is not a usable number, and names each one', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constant(-1),
          fc.constant(0),
          fc.constant(Number.NaN),
          fc.constant(Number.POSITIVE_INFINITY),
          fc.string(),
          fc.constant(null),
        ),
        (bad) => {
          const { decay, problems } = decayFromSettings({
            halfLifeDays: { user: bad },
            reference: { halfLifeDays: bad },
          });
          expect(decay).toEqual(DEFAULT_DECAY);
          expect(problems).toHaveLength(2);
        },
      ),
    );
  });
});

describe('the recallDecay setting', () => {
  const NOW = Date.parse('2026-06-01T12:00:00Z');
  const DAY = 86_400_000;

  function project(settings?: unknown) {
    const root = mkdtempSync(join(tmpdir(), 'engram-decay-'));
    const home = join(root, 'home');
    const cwd = join(root, 'app');
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(home, '.engram'), { recursive: true });
    if (settings)
      writeFileSync(
        join(home, '.engram', 'settings.json'),
        JSON.stringify({ recallDecay: settings }),
      );
    const engram = createEngram({
      cwd,
      homedir: home,
      env: { ENGRAM_HOME: join(home, '.engram') },
      clock: fixedClock(NOW),
      recallLog: false,
      userLayer: false,
    });
    const dir = engram.memoryDir;
    mkdirSync(dir, { recursive: true });
    // The same words; a user fact written 200 days ago, a project note 20 days ago.
    const write = (file: string, type: string, ageDays: number) => {
      writeFileSync(
        join(dir, file),
        `---\nname: queue retry policy\ndescription: queue retry policy for the billing worker\ntype: ${type}\n---\nx\n`,
      );
      const t = (NOW - ageDays * DAY) / 1000;
      utimesSync(join(dir, file), t, t);
    };
    write('old-user-fact.md', 'user', 200);
    write('recent-project-note.md', 'project', 20);
    return engram;
  }

  const order = async (settings?: unknown) => {
    const result = await project(settings).recall({ query: 'queue retry policy billing worker' });
    return result.selected.map((m) => m.file);
  };

  it('reorders equally matching memories by the configured half-lives', async () => {
    // Defaults: a user fact barely decays (365 days), a project note by age (7 days).
    expect((await order())[0]).toBe('old-user-fact.md');
    // Configured: user facts decay within a day, project notes over years.
    expect((await order({ halfLifeDays: { user: 1, project: 3650 } }))[0]).toBe(
      'recent-project-note.md',
    );
  });
});
