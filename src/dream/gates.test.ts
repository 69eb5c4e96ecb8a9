import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkEnabledGate,
  checkScanThrottle,
  checkSessionGate,
  checkTimeGate,
  DEFAULT_DREAM_CONFIG,
  decideLock,
  type SessionRef,
  sessionsToReview,
} from './gates.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-29T12:00:00Z');

describe('consolidation gates', () => {
  it('defaults match the design: 24 h, 5 sessions, one scan per 10 min, lock stale after 1 h', () => {
    expect(DEFAULT_DREAM_CONFIG).toMatchObject({
      minHours: 24,
      minSessions: 5,
      scanIntervalMs: 600_000,
      lockStaleMs: HOUR,
    });
  });

  it('enabled: memory off or dream off stops with the setting to change', () => {
    expect(checkEnabledGate({ memoryEnabled: false, dreamEnabled: true })).toMatchObject({
      kind: 'stop',
      reason: expect.stringMatching(/autoMemoryEnabled/),
    });
    expect(checkEnabledGate({ memoryEnabled: true, dreamEnabled: false })).toMatchObject({
      kind: 'stop',
      reason: expect.stringMatching(/autoDreamEnabled/),
    });
    expect(checkEnabledGate({ memoryEnabled: true, dreamEnabled: true }).kind).toBe('pass');
  });

  it('time: opens at exactly minHours, never-consolidated passes', () => {
    const at = (hoursAgo: number) =>
      checkTimeGate({ lastConsolidatedAtMs: NOW - hoursAgo * HOUR, nowMs: NOW, minHours: 24 });
    expect(at(23.99)).toMatchObject({ kind: 'stop', gate: 'time' });
    expect((at(23.99) as { reason: string }).reason).toMatch(/24\.0 h since .*needs 24 h/);
    expect(at(24).kind).toBe('pass');
    expect(checkTimeGate({ lastConsolidatedAtMs: 0, nowMs: NOW, minHours: 24 })).toMatchObject({
      kind: 'pass',
      detail: 'never consolidated before',
    });
  });

  it('throttle: stops for the interval after a scan, then opens', () => {
    const t = (ago: number | undefined) =>
      checkScanThrottle({
        lastScanAtMs: ago === undefined ? undefined : NOW - ago,
        nowMs: NOW,
        scanIntervalMs: 600_000,
      }).kind;
    expect(t(undefined)).toBe('pass');
    expect(t(0)).toBe('stop');
    expect(t(599_999)).toBe('stop');
    expect(t(600_000)).toBe('pass');
  });

  it('sessions: the current session never counts, newest first', () => {
    const refs: SessionRef[] = ['a', 'b', 'cur', 'c', 'd'].map((id, i) => ({
      id,
      path: `/t/${id}.jsonl`,
      mtimeMs: NOW - i * 1000,
    }));
    const review = sessionsToReview(refs, 'cur');
    expect(review.map((s) => s.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(checkSessionGate({ sessions: review, minSessions: 5 })).toMatchObject({
      kind: 'stop',
      reason: '4 sessions since the last consolidation; needs 5',
    });
    expect(
      checkSessionGate({ sessions: sessionsToReview(refs, undefined), minSessions: 5 }).kind,
    ).toBe('pass');
  });

  describe('lock decision', () => {
    const state = (ageMs: number, pid: number | undefined) => ({
      exists: true,
      mtimeMs: NOW - ageMs,
      holderPid: pid,
    });
    it('a fresh lock with a live holder stops; dead holder, stale age or no holder pass', () => {
      const base = { nowMs: NOW, staleMs: HOUR };
      expect(decideLock({ ...base, state: state(1000, 42), holderAlive: true })).toMatchObject({
        kind: 'stop',
        reason: expect.stringMatching(/PID 42/),
      });
      expect(decideLock({ ...base, state: state(1000, 42), holderAlive: false })).toMatchObject({
        kind: 'pass',
        detail: expect.stringMatching(/gone/),
      });
      expect(decideLock({ ...base, state: state(HOUR, 42), holderAlive: true })).toMatchObject({
        kind: 'pass',
        detail: expect.stringMatching(/stale/),
      });
      expect(decideLock({ ...base, state: state(10, undefined), holderAlive: false }).kind).toBe(
        'pass',
      );
      expect(
        decideLock({
          ...base,
          state: { exists: false, mtimeMs: 0, holderPid: undefined },
          holderAlive: false,
        }).kind,
      ).toBe('pass');
    });

    it('a lock that changed since the time gate read it is refused (someone else ran)', () => {
      const base = { nowMs: NOW, staleMs: HOUR, holderAlive: false };
      expect(
        decideLock({ ...base, state: state(5, undefined), expectedMtimeMs: NOW - 48 * HOUR }),
      ).toMatchObject({ kind: 'stop', reason: expect.stringMatching(/since this check began/) });
      expect(
        decideLock({
          ...base,
          state: state(5, undefined),
          expectedMtimeMs: 0,
        }).kind,
      ).toBe('stop');
      expect(
        decideLock({
          ...base,
          state: { exists: false, mtimeMs: 0, holderPid: undefined },
          expectedMtimeMs: 0,
        }).kind,
      ).toBe('pass');
    });

    it('property: a live holder within the stale window always stops, whatever else holds', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: HOUR - 1 }),
          fc.integer({ min: 1, max: 4_000_000 }),
          (age, pid) =>
            decideLock({ nowMs: NOW, staleMs: HOUR, state: state(age, pid), holderAlive: true })
              .kind === 'stop',
        ),
      );
    });
  });
});
