/**
 * The labeled recall sets kept in eval/recall-sets/ (coding-agent memories; relevant and
 * unrelated prompts; English and Chinese), run through the CLI command, each held at the levels the
 * offline ranker reaches on it.
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
// coding-agent, heldout-platform and heldout-shop were tuned on; heldout-ml never was.
describe('engram eval recall on the labeled sets', () => {
  it('keeps the development set at full silence and nearly every gold memory', async () => {
    const report = await evalSet('coding-agent');
    expect(report.relevantPrompts).toBeGreaterThanOrEqual(40);
    expect(report.unrelatedPrompts).toBeGreaterThanOrEqual(20);
    expect(report.recall).toBeGreaterThanOrEqual(0.98);
    expect(report.silence).toBe(1);
    expect(report.precision).toBeGreaterThanOrEqual(0.89);
  }, 60_000);

  it('keeps the platform set silent on every unrelated prompt', async () => {
    const report = await evalSet('heldout-platform');
    expect(report.recall).toBeGreaterThanOrEqual(0.93);
    expect(report.silence).toBe(1);
    expect(report.precision).toBeGreaterThanOrEqual(0.9);
  }, 60_000);

  it('holds the shop set, the hardest one, at its measured levels', async () => {
    const report = await evalSet('heldout-shop');
    expect(report.relevantPrompts).toBeGreaterThanOrEqual(40);
    expect(report.unrelatedPrompts).toBeGreaterThanOrEqual(20);
    // 0.824 before the redundancy rule, which drops two gold memories here (a weaker second
    // memory sharing the best one's words) and 8 wrong ones (docs/eval.md).
    expect(report.recall).toBeGreaterThanOrEqual(0.78);
    expect(report.silence).toBeGreaterThanOrEqual(0.75);
    expect(report.precision).toBeGreaterThanOrEqual(0.62);
  }, 60_000);

  it('generalises to the set never tuned on: silent on every unrelated prompt', async () => {
    const report = await evalSet('heldout-ml');
    expect(report.recall).toBeGreaterThanOrEqual(0.84);
    expect(report.silence).toBe(1);
    expect(report.precision).toBeGreaterThanOrEqual(0.82);
  }, 60_000);
});
