import { describe, expect, it } from 'vitest';
import {
  feedbackPolarity,
  findRelativeDates,
  hasWhy,
  nearDuplicateDescriptions,
  polarityIsLopsided,
} from './doctor-checks.js';

describe('findRelativeDates', () => {
  it('finds the relative dates a later reader cannot resolve, with their lines', () => {
    const text = [
      '---',
      'name: x',
      '---',
      'The freeze starts next Thursday.',
      'Fixed yesterday; revisit in 3 weeks.',
      'Shipped on 2026-03-05, two days ago.',
      '下周 发布',
    ].join('\n');
    expect(findRelativeDates(text).map((d) => [d.line, d.text.toLowerCase()])).toEqual([
      [4, 'next thursday'],
      [5, 'yesterday'],
      [5, 'in 3 weeks'],
      [6, 'two days ago'],
      [7, '下周'],
    ]);
  });

  it('leaves absolute dates, ordinary words and fenced code alone', () => {
    const text =
      'Decided on 2026-03-05 (Thursday).\nTodayView is a component.\n```\necho yesterday\n```\n';
    expect(findRelativeDates(text)).toEqual([]);
  });
});

describe('feedbackPolarity', () => {
  it('tells corrections from confirmations by the rule, not the reason', () => {
    expect(feedbackPolarity('Never mock the database.\n**Why:** it worked badly.')).toBe(
      'correction',
    );
    expect(feedbackPolarity('Keep the one-line commit summaries.\n**Why:** not noisy.')).toBe(
      'confirmation',
    );
    expect(feedbackPolarity('Good call on bundling, but do not bundle tests.')).toBe('mixed');
    expect(feedbackPolarity('Tests live beside the code.')).toBe('neither');
  });

  it('warns only when corrections outnumber confirmations by far, with enough of them', () => {
    expect(polarityIsLopsided(12, 0)).toBe(true);
    expect(polarityIsLopsided(24, 1)).toBe(true);
    expect(polarityIsLopsided(4, 0)).toBe(false);
    expect(polarityIsLopsided(10, 2)).toBe(false);
  });
});

describe('hasWhy', () => {
  it('accepts **Why:** and **Why**: spellings', () => {
    expect(hasWhy('a\n**Why:** b')).toBe(true);
    expect(hasWhy('a\n**why**: b')).toBe(true);
    expect(hasWhy('a because b')).toBe(false);
  });
});

describe('nearDuplicateDescriptions', () => {
  it('pairs descriptions that say the same thing and leaves distinct ones', () => {
    const pairs = nearDuplicateDescriptions([
      { file: 'a.md', description: 'Run the tests with vitest in watch mode' },
      { file: 'b.md', description: 'run the tests with Vitest, in watch mode' },
      { file: 'c.md', description: 'Release checklist for the mobile app' },
    ]);
    expect(pairs).toEqual([{ a: 'a.md', b: 'b.md', similarity: 1 }]);
  });
});
