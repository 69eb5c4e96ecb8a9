/**
 * The labeled recall sets kept in eval/recall-sets/ (coding-agent memories; relevant and
 * unrelated prompts; English and Chinese), run through the CLI command: the offline ranker must meet
 * the targets on the development set, and on the held-out set that was never tuned on it must
 * stay silent on most unrelated prompts and find most gold memories.
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

describe('engram eval recall on the labeled sets', () => {
  it('meets the gold-recall and silence targets on the development set', async () => {
    const report = await evalSet('coding-agent');
    expect(report.relevantPrompts).toBeGreaterThanOrEqual(40);
    expect(report.unrelatedPrompts).toBeGreaterThanOrEqual(20);
    expect(report.recall).toBeGreaterThanOrEqual(0.9);
    expect(report.silence).toBe(1);
    expect(report.precision).toBeGreaterThanOrEqual(0.8);
  }, 60_000);

  it('generalises to the held-out set', async () => {
    const report = await evalSet('heldout-platform');
    expect(report.recall).toBeGreaterThanOrEqual(0.85);
    expect(report.silence).toBeGreaterThanOrEqual(0.9);
    expect(report.precision).toBeGreaterThanOrEqual(0.75);
  }, 60_000);
});
