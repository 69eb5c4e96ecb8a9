import { describe, expect, it } from 'vitest';
import { memoryAgeDays, memoryAgeText, stalenessWarning } from './freshness.js';
import { GUIDANCE_HEADINGS, memoryGuidance } from './prompts.js';

describe('memory guidance prompt', () => {
  const text = memoryGuidance({ memoryDir: '/mem/dir' });

  it('has every part, in order, as its own section', () => {
    const order = Object.values(GUIDANCE_HEADINGS).map((h) => text.indexOf(`${h}\n`));
    for (const index of order) expect(index).toBeGreaterThanOrEqual(0);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('keeps verification as a separate section with an action-oriented header, not a bullet', () => {
    const verify = GUIDANCE_HEADINGS.verify;
    expect(verify.startsWith('## ')).toBe(true);
    expect(verify).toMatch(/^## (Check|Verify)\b/);
    expect(text.split('\n').filter((l) => l === verify)).toHaveLength(1);
    // The advice to check files and grep for names sits under that header, not as a bullet elsewhere.
    const section = text.slice(text.indexOf(verify), text.indexOf(GUIDANCE_HEADINGS.ignore));
    expect(section).toMatch(/file path: confirm the file still exists/);
    expect(section).toMatch(/search the code/);
  });

  it('names the four types, the exclusions that hold even when asked, the two steps, and absolute dates', () => {
    for (const t of ['**user**', '**feedback**', '**project**', '**reference**'])
      expect(text).toContain(t);
    expect(text).toMatch(/even when the user explicitly asks/);
    expect(text).toMatch(/surprising/);
    expect(text).toMatch(/two steps/);
    expect(text).toContain('/mem/dir');
    expect(text).toMatch(/MEMORY\.md/);
    expect(text).toMatch(/absolute/);
    expect(text).toMatch(/\*\*Why:\*\*/);
    expect(memoryGuidance({ memoryDir: '/mem/dir' })).toBe(text);
  });
});

describe('freshness', () => {
  const day = 86_400_000;
  it('counts whole days and never goes negative', () => {
    expect(memoryAgeDays(0, day - 1)).toBe(0);
    expect(memoryAgeDays(0, day)).toBe(1);
    expect(memoryAgeDays(0, 47 * day + 5)).toBe(47);
    expect(memoryAgeDays(10 * day, 0)).toBe(0);
  });
  it('speaks in relative words and warns only past one day', () => {
    expect([0, 1, 2, 30].map(memoryAgeText)).toEqual([
      'today',
      'yesterday',
      '2 days ago',
      '30 days ago',
    ]);
    expect(stalenessWarning(0)).toBe('');
    expect(stalenessWarning(1)).toBe('');
    expect(stalenessWarning(2)).toMatch(/2 days old/);
    expect(stalenessWarning(2)).toMatch(/[Cc]heck/);
  });
});
