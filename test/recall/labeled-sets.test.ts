/**
 * The labeled recall sets kept in eval/recall-sets/ (coding-agent memories; relevant and
 * unrelated prompts; English, Chinese and Japanese), run through the CLI command, each held at the
 * levels the offline ranker reaches on it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../../src/cli/test-io.js';

const SETS = join(import.meta.dirname, '..', '..', 'eval', 'recall-sets');

async function evalSet(name: string) {
  const r = await runCaptured(
    ['eval', 'recall', '--set', join(SETS, `${name}.json`), '--json'],
    testIo(),
  );
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

// The acceptance targets (precision 0.9, recall 0.9, silence 1.0) are not all met yet (docs/eval.md):
// each set asserts the levels measured when the cut-off last changed, so a regression fails here.
// Since the generic-vocabulary prior (lexical/generic-words.ts) a memory sharing one generic word
// with the prompt ("function", "parse", "field") is no longer selected: recall fell on the first
// four sets (docs/eval.md lists the memories lost), precision and silence rose on all of them.
describe('engram eval recall on the labeled sets', () => {
  it('keeps the development set at full silence and most gold memories', async () => {
    const report = await evalSet('coding-agent');
    expect(report.relevantPrompts).toBeGreaterThanOrEqual(40);
    expect(report.unrelatedPrompts).toBeGreaterThanOrEqual(20);
    // 49 of 53 before the learned veto (learned-veto.ts), which dropped two gold memories here
    // and no wrong one: the trade it makes pays on the harder sets below, not on this one.
    expect(report.recall).toBeGreaterThanOrEqual(47 / 53 - 1e-9);
    expect(report.silence).toBe(1);
    expect(report.precision).toBeGreaterThanOrEqual(0.9);
  }, 60_000);

  it('keeps the platform set silent on every unrelated prompt', async () => {
    const report = await evalSet('heldout-platform');
    expect(report.recall).toBeGreaterThanOrEqual(0.79);
    expect(report.silence).toBe(1);
    expect(report.precision).toBeGreaterThanOrEqual(0.92);
  }, 60_000);

  it('holds the shop set, the hardest of the first four, at its measured levels', async () => {
    const report = await evalSet('heldout-shop');
    expect(report.relevantPrompts).toBeGreaterThanOrEqual(40);
    expect(report.unrelatedPrompts).toBeGreaterThanOrEqual(20);
    expect(report.recall).toBeGreaterThanOrEqual(0.7);
    expect(report.silence).toBeGreaterThanOrEqual(0.79);
    expect(report.precision).toBeGreaterThanOrEqual(0.76);
  }, 60_000);

  it('keeps the ML set silent on every unrelated prompt', async () => {
    const report = await evalSet('heldout-ml');
    expect(report.recall).toBeGreaterThanOrEqual(26 / 33 - 1e-9);
    expect(report.silence).toBe(1);
    expect(report.precision).toBeGreaterThanOrEqual(26 / 28 - 1e-9);
  }, 60_000);

  // Written without looking at the ranker; development sets since the generic-vocabulary work.
  // [set, precision, recall, silence] as measured then (docs/eval.md).
  const SEALED: Array<[string, number, number, number]> = [
    ['sealed-game-ja', 0.83, 0.65, 16 / 18],
    ['sealed-mobile', 0.82, 0.73, 22 / 22],
    ['sealed-oss-lib', 24 / 32, 24 / 39, 16 / 18],
    ['sealed-pipeline-zh', 32 / 39, 32 / 42, 18 / 20],
  ];
  // Written blind by the sealed3 helper for #19's acceptance, committed before their first run
  // (0677ef8); three gold labels fixed once after it. Their misses were read for the rules after
  // the third wave (docs/eval.md), so they are development sets now, like the waves before:
  // [set, precision, recall, silence] as measured.
  const SEALED3: Array<[string, number, number, number]> = [
    ['sealed3-go-logistics', 23 / 46, 23 / 48, 14 / 18],
    ['sealed3-miniapp-zh', 25 / 44, 25 / 44, 13 / 18],
    ['sealed3-ml-airflow', 23 / 47, 23 / 40, 15 / 18],
    ['sealed3-devops-ja', 20 / 43, 20 / 42, 10 / 18],
  ];
  // Written blind by the sealed4 helper for #19's acceptance, committed before their first run
  // (fa2f7ae) and never tuned on; two gold labels fixed once after it (docs/eval.md):
  // [set, precision, recall, silence] as measured with the learned veto (fitted on the other
  // seventeen sets, measured here by the lead; before it, with the identifier, "vs" and example
  // rules: 24/54 24/48 12/18, 29/55 29/45 10/18, 28/60 28/49 13/18, 29/51 29/46 10/18).
  const SEALED4: Array<[string, number, number, number]> = [
    ['sealed4-rails-saas', 23 / 49, 23 / 48, 13 / 18],
    ['sealed4-rust-engine', 29 / 53, 29 / 45, 10 / 18],
    ['sealed4-spring-zh', 28 / 51, 28 / 49, 17 / 18],
    ['sealed4-android-ko', 29 / 50, 29 / 46, 11 / 18],
  ];
  // Written blind in the wave before; the generic-vocabulary work read their misses, so they are
  // development sets now (docs/eval.md): [set, precision, recall, silence] as measured since.
  const SEALED2: Array<[string, number, number, number]> = [
    ['sealed2-data-science-zh', 23 / 46, 23 / 38, 13 / 18],
    ['sealed2-embedded-en', 15 / 48, 15 / 45, 11 / 18],
    ['sealed2-fintech-api', 22 / 44, 22 / 44, 15 / 18],
    ['sealed2-web-ko-ja', 20 / 47, 20 / 46, 13 / 18],
  ];
  for (const [name, precision, recall, silence] of [
    ...SEALED,
    ...SEALED2,
    ...SEALED3,
    ...SEALED4,
  ]) {
    it(`holds ${name} at its measured levels`, async () => {
      const report = await evalSet(name);
      expect(report.precision).toBeGreaterThanOrEqual(precision - 1e-9);
      expect(report.recall).toBeGreaterThanOrEqual(recall - 1e-9);
      expect(report.silence).toBeGreaterThanOrEqual(silence - 1e-9);
    }, 60_000);
  }
});
