/**
 * Every software concept line earns its place on a labeled set: leaving it out loses a gold memory,
 * precision or silence on eval/recall-sets/. The everyday part holds no word that also names
 * something in software, so it cannot pull a life note into a coding prompt.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ablateConcepts } from '../../src/eval/recall/concept-ablation.js';
import { loadLabeledSet } from '../../src/eval/recall/labeled-set.js';
import { EVERYDAY_TAXONOMY, SOFTWARE_TAXONOMY } from '../../src/recall/lexical/concepts.js';

const SETS = join(import.meta.dirname, '..', '..', 'eval', 'recall-sets');

const lines = (taxonomy: string) =>
  taxonomy
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes(':'));

describe('the concept layer', () => {
  it('keeps only software concepts that some labeled case needs, none costing a silence', async () => {
    // Named one by one: a set added to the directory is measured by whoever adds it, not here.
    const names = [
      'coding-agent',
      'heldout-ml',
      'heldout-platform',
      'heldout-shop',
      'layers-user',
      'sealed-game-ja',
      'sealed-mobile',
      'sealed-oss-lib',
      'sealed-pipeline-zh',
    ];
    const sets = await Promise.all(names.map((n) => loadLabeledSet(join(SETS, `${n}.json`))));
    const { lines: worth } = ablateConcepts(sets, { nowMs: Date.UTC(2026, 10, 1) });
    const software = new Set(lines(SOFTWARE_TAXONOMY));
    const idle = worth.filter((w) => software.has(w.line) && !w.earnsPlace).map((w) => w.line);
    expect(idle).toEqual([]);
    // A line that pulls a memory into an unrelated prompt ("observability" stemmed as
    // "observable" did) costs more than the case it was added for.
    const silencing = worth
      .filter((w) => software.has(w.line) && w.deltas.some((d) => d.silence < -1e-9))
      .map((w) => w.line);
    expect(silencing).toEqual([]);
  }, 120_000);

  it('has no everyday member that is also a common software word', () => {
    const software =
      'run running job jobs class course read reading write writing plan race match tree spring store shop budget present policy event party start open launch build make create design support help like place spot game phone computer picture issue log logging dashboard work branch commit merge release deploy test'.split(
        ' ',
      );
    const members = lines(EVERYDAY_TAXONOMY).flatMap((l) => l.split(':')[1]!.trim().split(/\s+/));
    const heads = lines(EVERYDAY_TAXONOMY).map((l) => l.split(':')[0]!.trim());
    const clash = [...members, ...heads].filter((w) => software.includes(w));
    // "work", "job" and "party"/"event"/"place" stay on purpose (docs/recall.md): the cut-off never
    // lets a weak word select a memory, and LoCoMo needs them; everything else is out.
    expect(clash.sort()).toEqual(['event', 'job', 'party', 'party', 'place', 'work']);
  });
});
