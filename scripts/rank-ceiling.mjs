// The ranking ceiling of the offline ranker on the labeled sets (#19): of the gold memories, how
// many are among the ranker's 5 and 10 best when it ranks everything (no cut-off can select a gold
// memory ranked below what it keeps), beside what the shipped cut-off selects (precision, gold
// recalled, unrelated prompts answered with nothing). Summed per wave family: the seventeen sets
// of the first three waves and development sets, and the fourth wave (`sealed4-*`), so a change
// tuned on one family is read on the other. docs/eval.md ("The ranking ceiling") holds the figures.
//
//   npm run build && node scripts/rank-ceiling.mjs [--per-set] [--misses]
//
// --misses: the gold memories ranked below 5, by what they share with the prompt (a word counted
// by the cut-off, only character grams or feedback terms, nothing at all).
// Deterministic: fixed clock, in memory, the same ranker `engram eval recall` runs.
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => join(ROOT, 'dist', p);
const { loadLabeledSet } = await import(dist('eval/recall/labeled-set.js'));
const { rankerOfSet } = await import(dist('eval/recall/in-memory.js'));
const { MAX_RECALLED } = await import(dist('recall/offline-ranker.js'));

const NOW = Date.parse('2026-12-02T12:00:00Z');
const args = process.argv.slice(2);

const empty = () => ({
  gold: 0,
  top5: 0,
  top10: 0,
  selected: 0,
  right: 0,
  unrelated: 0,
  silent: 0,
});
const familyOf = (file) => (file.startsWith('sealed4-') ? 'sealed4' : 'waves 1-3');
const families = new Map([
  ['waves 1-3', empty()],
  ['sealed4', empty()],
]);
const misses = new Map([
  ['waves 1-3', {}],
  ['sealed4', {}],
]);
const perSet = [];

const dir = join(ROOT, 'eval', 'recall-sets');
for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
  const set = await loadLabeledSet(join(dir, file));
  const { ranker, idOf } = rankerOfSet(set, { nowMs: NOW });
  const c = empty();
  const missed = misses.get(familyOf(file));
  for (const p of set.prompts) {
    const gold = new Set(p.gold);
    const ranked = ranker.rank(p.prompt, { nowMs: NOW, limit: Infinity, requireOverlap: false });
    const selected = ranker.rank(p.prompt, { nowMs: NOW, limit: MAX_RECALLED });
    c.gold += gold.size;
    ranked.forEach((r, i) => {
      if (!gold.has(idOf(r.file))) return;
      if (i < 5) c.top5++;
      if (i < 10) c.top10++;
      if (i >= 5) {
        const what =
          r.overlap > 0 ? 'a word' : r.relevance > 0 ? 'grams or feedback only' : 'nothing';
        const key = `${i < 10 ? 'rank 6-10' : 'rank > 10'}, shares ${what}`;
        missed[key] = (missed[key] ?? 0) + 1;
      }
    });
    c.selected += selected.length;
    c.right += selected.filter((r) => gold.has(idOf(r.file))).length;
    if (gold.size === 0) {
      c.unrelated++;
      if (selected.length === 0) c.silent++;
    }
  }
  const family = families.get(familyOf(file));
  for (const k of Object.keys(c)) family[k] += c[k];
  perSet.push([file.replace(/\.json$/, ''), c]);
}

const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`;
const line = (name, c) =>
  `${name.padEnd(26)} top 5 ${c.top5}/${c.gold} (${pct(c.top5, c.gold)})  top 10 ${c.top10} (${pct(c.top10, c.gold)})  ` +
  `precision ${(c.right / c.selected).toFixed(3)} (${c.right}/${c.selected})  gold ${pct(c.right, c.gold)}  ` +
  `silent ${c.silent}/${c.unrelated}`;
if (args.includes('--per-set')) for (const [name, c] of perSet) console.log(line(name, c));
for (const [name, c] of families) console.log(line(name, c));
if (args.includes('--misses'))
  for (const [name, m] of misses) {
    console.log(`${name}: gold ranked below 5`);
    for (const key of Object.keys(m).sort()) console.log(`  ${key}: ${m[key]}`);
  }
