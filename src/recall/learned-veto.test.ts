import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rankSetInMemory } from '../eval/recall/in-memory.js';
import { loadLabeledSet } from '../eval/recall/labeled-set.js';
import {
  applyLearnedVeto,
  isGeneralQuestion,
  LEARNED_VETO,
  VETO_MIN_MEMORIES,
  type VetoCandidate,
  vetoFeatures,
  vetoProbability,
} from './learned-veto.js';
import { createOfflineRanker } from './offline-ranker.js';
import { RELEVANCE_CUTOFF } from './relevance-cutoff.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NOW = Date.UTC(2026, 10, 1);

const candidate = fc.record({
  file: fc.stringMatching(/^[a-z]{1,6}\.md$/),
  type: fc.constantFrom('user', 'feedback', 'project', 'reference', 'unknown') as fc.Arbitrary<
    VetoCandidate['type']
  >,
  score: fc.double({ min: 0, max: 20, noNaN: true }),
  relevance: fc.double({ min: 0, max: 20, noNaN: true }),
  overlap: fc.integer({ min: 0, max: 6 }),
  distinctive: fc.integer({ min: 0, max: 6 }),
  specificWords: fc.uniqueArray(fc.constantFrom('kafka', 'deploy', 'latenc', '部署', 'helm'), {
    maxLength: 4,
  }),
  phrases: fc.integer({ min: 0, max: 2 }),
});
/** Ten best candidates, best first, each file once. */
const topList = fc
  .uniqueArray(candidate, { minLength: 1, maxLength: 10, selector: (c) => c.file })
  .map((list) => [...list].sort((a, b) => b.score - a.score));

describe('the learned veto', () => {
  it('computes every feature it has a weight for, and only those', () => {
    const [features] = vetoFeatures(
      [
        {
          file: 'a.md',
          type: 'feedback',
          score: 2,
          relevance: 1.5,
          overlap: 2,
          distinctive: 2,
          specificWords: ['kafka'],
          phrases: 0,
        },
      ],
      'why is the kafka consumer lagging',
      RELEVANCE_CUTOFF,
    );
    expect(Object.keys(features!).sort()).toEqual(
      LEARNED_VETO.features.map((f) => f.feature).sort(),
    );
    for (const f of LEARNED_VETO.features) {
      expect(Number.isFinite(f.weight) && Number.isFinite(f.mean) && f.sd > 0).toBe(true);
    }
    expect(LEARNED_VETO.threshold).toBeGreaterThan(0);
    expect(LEARNED_VETO.threshold).toBeLessThan(1);
  });

  it('gives a probability strictly between 0 and 1 for any ranked list', () => {
    fc.assert(
      fc.property(topList, fc.string(), (top, prompt) => {
        for (const f of vetoFeatures(top, prompt, RELEVANCE_CUTOFF)) {
          const p = vetoProbability(f);
          expect(p > 0 && p < 1).toBe(true);
        }
      }),
    );
  });

  it('only ever drops a selection: what it keeps is the selection, in order, minus some', () => {
    fc.assert(
      fc.property(topList, fc.array(fc.nat({ max: 9 })), fc.string(), (top, picks, prompt) => {
        const selected = [...new Set(picks)]
          .filter((i) => i < top.length)
          .sort((a, b) => a - b)
          .map((i) => top[i]!);
        const kept = applyLearnedVeto(selected, top, prompt, RELEVANCE_CUTOFF);
        let at = 0;
        for (const k of kept) {
          while (at < selected.length && selected[at] !== k) at++;
          expect(at).toBeLessThan(selected.length);
          at++;
        }
      }),
    );
  });

  it('abstains on a selection made without evidence of its own, and drops one outside the ten best', () => {
    const weak: VetoCandidate = {
      file: 'testing.md',
      type: 'reference',
      score: 0.01,
      relevance: 0.01,
      overlap: 1,
      distinctive: 0,
      specificWords: [],
      phrases: 0,
    };
    // However low its probability would be, the veto does not judge it.
    const [features] = vetoFeatures([weak], 'what is testing', RELEVANCE_CUTOFF);
    expect(vetoProbability(features!)).toBeLessThan(LEARNED_VETO.threshold);
    expect(applyLearnedVeto([weak], [weak], 'what is testing', RELEVANCE_CUTOFF)).toEqual([weak]);
    expect(applyLearnedVeto([weak], [], 'what is testing', RELEVANCE_CUTOFF)).toEqual([]);
  });

  it('reads a general question in English, Chinese, Japanese and Korean', () => {
    for (const q of [
      'What is the difference between count and for_each?',
      'how does the borrow checker work',
      'Deployment vs StatefulSet',
      'Kubernetes 的 Deployment 和 StatefulSet 有什么区别',
      'Terraform の count と for_each の違い',
      'コルーチンとは',
      'useEffect 와 useLayoutEffect 차이',
    ])
      expect(isGeneralQuestion(q), q).toBe(true);
    for (const q of [
      'add a retry to the payment worker',
      '把部署脚本改成蓝绿发布',
      'fix the flaky test',
    ])
      expect(isGeneralQuestion(q), q).toBe(false);
  });

  it('drops selections on a labeled set and never adds one, prompt by prompt', async () => {
    const set = await loadLabeledSet(join(ROOT, 'eval', 'recall-sets', 'sealed2-embedded-en.json'));
    const rules = rankSetInMemory(set, { nowMs: NOW, veto: false });
    const shipped = rankSetInMemory(set, { nowMs: NOW });
    let dropped = 0;
    shipped.forEach((outcome, i) => {
      const before = new Set(rules[i]!.selected);
      for (const s of outcome.selected) expect(before.has(s), outcome.prompt).toBe(true);
      dropped += before.size - outcome.selected.length;
    });
    expect(dropped).toBeGreaterThan(0);
  });

  it('leaves a directory smaller than the sets it was fitted on to the rules alone', () => {
    // A one-word prompt whose word a memory's description names, among a handful of memories:
    // scores are small there (few documents, small idf) and the veto would drop it.
    const memories = Array.from({ length: VETO_MIN_MEMORIES - 1 }, (_, i) => ({
      file: `m${i}.md`,
      type: 'project' as const,
      description: i === 0 ? 'Changelog entries go under Unreleased' : `release process ${i}`,
      mtimeMs: NOW,
    }));
    const ranker = createOfflineRanker(memories);
    const rules = ranker.rank('changelog', { nowMs: NOW, veto: false }).map((r) => r.file);
    expect(rules).toEqual(['m0.md']);
    expect(ranker.rank('changelog', { nowMs: NOW }).map((r) => r.file)).toEqual(rules);
  });

  it('holds the constants scripts/cutoff-learn.mjs fits on the development sets', () => {
    // The script runs against the build (npm test builds first).
    if (!existsSync(join(ROOT, 'dist', 'recall', 'learned-veto.js')))
      throw new Error('dist/ is missing: run `npm run build` first');
    const out = execFileSync(
      process.execPath,
      [join(ROOT, 'scripts', 'cutoff-learn.mjs'), '--emit-veto'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const fitted = JSON.parse(out) as typeof LEARNED_VETO;
    expect(fitted.threshold).toBe(LEARNED_VETO.threshold);
    expect(fitted.bias).toBeCloseTo(LEARNED_VETO.bias, 9);
    expect(fitted.features.map((f) => f.feature)).toEqual(
      LEARNED_VETO.features.map((f) => f.feature),
    );
    fitted.features.forEach((f, i) => {
      expect(f.weight).toBeCloseTo(LEARNED_VETO.features[i]!.weight, 9);
      expect(f.mean).toBeCloseTo(LEARNED_VETO.features[i]!.mean, 9);
    });
  }, 180_000);
});
