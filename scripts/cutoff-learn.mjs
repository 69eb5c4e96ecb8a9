// A learned relevance cut-off, measured leave-one-set-out against the hand-written one (#19).
//
// For every prompt of every development set in eval/recall-sets (never the sealed4-* sets: they
// are the blind wave), the offline ranker's best TOP candidates are dumped with the features the
// cut-off sees or could cheaply see, labeled gold or not. Each model (logistic regression, small
// gradient-boosted trees; with and without today's selection as a feature) is trained on all sets
// but one and selects on the one left out: every candidate whose probability clears a threshold,
// best first, at most 5, zero allowed. The threshold is chosen on the training sets only (the
// highest that keeps as many of their gold memories as today's rules keep there). Precision, gold
// recalled and silent unrelated prompts are summed over the folds and set beside today's rules on
// the same prompts; docs/eval.md ("A learned cut-off") holds the figures and what was decided.
//
//   npm run build && node scripts/cutoff-learn.mjs [--dump features.jsonl] [--json]
//   CUTOFF_LEARN_ONLY=logistic node scripts/cutoff-learn.mjs   # only the variants named so
//   node scripts/cutoff-learn.mjs --measure SET.json…  # train on all development sets, measure
//                                                      # on these once (the lead, on a blind wave)
//
// Deterministic: fixed clock, no randomness (Newton's method, exhaustive splits). One to five
// minutes, by load.
import { writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => join(ROOT, 'dist', p);
const { loadLabeledSet } = await import(dist('eval/recall/labeled-set.js'));
const { rankerOfSet } = await import(dist('eval/recall/in-memory.js'));
const { MAX_RECALLED } = await import(dist('recall/offline-ranker.js'));
const { RELEVANCE_CUTOFF } = await import(dist('recall/relevance-cutoff.js'));
const { analyze } = await import(dist('recall/tokenize.js'));
// The features of the ranked list (rank, scores, the rules' counts, a general question, CJK, type).
const { vetoFeatures } = await import(dist('recall/learned-veto.js'));

const NOW = Date.parse('2026-12-02T12:00:00Z');
const TOP = 10;

const args = process.argv.slice(2);
const dumpPath = args.includes('--dump') ? args[args.indexOf('--dump') + 1] : undefined;
const asJson = args.includes('--json');
const measured = args.includes('--measure')
  ? args.slice(args.indexOf('--measure') + 1).filter((a) => !a.startsWith('--'))
  : [];

async function developmentSets() {
  const dir = join(ROOT, 'eval', 'recall-sets');
  const files = (await readdir(dir))
    .filter((f) => f.endsWith('.json') && !f.startsWith('sealed4-'))
    .sort();
  const sets = [];
  for (const f of files) sets.push(await loadLabeledSet(join(dir, f)));
  return sets;
}

const termsOf = (text) => new Set(analyze(text ?? '').terms);
const log1p = (x) => Math.log(1 + x);

/** One row per (prompt, candidate): features, label, and whether today's rules select it. */
function rowsOfSet(set) {
  const { ranker, visible, idOf } = rankerOfSet(set, { nowMs: NOW });
  const byFile = new Map(visible.map((m) => [m.file, m]));
  // Document frequency of each term over the memories' headers, for idf.
  const memTerms = new Map();
  const df = new Map();
  for (const m of visible) {
    const t = termsOf(`${m.name ?? m.file.replace(/\.md$/, '')}\n${m.description}`);
    memTerms.set(m.file, t);
    for (const x of t) df.set(x, (df.get(x) ?? 0) + 1);
  }
  const n = visible.length;
  const idf = (t) => Math.log((n + 1) / ((df.get(t) ?? 0) + 0.5));
  const prompts = [];
  for (const p of set.prompts) {
    const ranked = ranker.rank(p.prompt, { nowMs: NOW, limit: Infinity, requireOverlap: false });
    // Today's rules: the hand-written cut-off alone; `shipped`: the offline ranker as it ships,
    // the learned veto (src/recall/learned-veto.ts, fitted by --emit-veto) applied to them.
    const today = new Set(
      ranker
        .rank(p.prompt, { nowMs: NOW, limit: MAX_RECALLED, veto: false })
        .map((r) => idOf(r.file)),
    );
    const shipped = ranker
      .rank(p.prompt, { nowMs: NOW, limit: MAX_RECALLED })
      .map((r) => idOf(r.file));
    const top = ranked.slice(0, TOP);
    const pTerms = termsOf(p.prompt);
    const unknown = [...pTerms].filter((t) => !df.has(t)).length;
    // What the ranked list says of its ten best, as the shipped veto computes it.
    const listed = vetoFeatures(
      top.map((r) => ({ ...r, type: byFile.get(r.file).type })),
      p.prompt,
      RELEVANCE_CUTOFF,
    );
    const gold = new Set(p.gold);
    const rows = top.map((r, i) => {
      const mt = memTerms.get(r.file);
      const shared = [...pTerms].filter((t) => mt.has(t));
      const idfs = shared.map(idf);
      const f = {
        ...listed[i],
        sharedStems: shared.length,
        maxIdf: idfs.length ? Math.max(...idfs) : 0,
        sumIdf: idfs.reduce((a, b) => a + b, 0),
        promptCoverage: pTerms.size ? shared.length / pTerms.size : 0,
        memoryCoverage: mt.size ? shared.length / mt.size : 0,
        promptTerms: log1p(pTerms.size),
        unknownShare: pTerms.size ? unknown / pTerms.size : 0,
        unknownTerms: log1p(unknown),
        rule: today.has(idOf(r.file)) ? 1 : 0,
      };
      return { id: idOf(r.file), label: gold.has(idOf(r.file)) ? 1 : 0, f };
    });
    prompts.push({
      set: set.name,
      prompt: p.prompt,
      gold: [...gold],
      today: [...today],
      shipped,
      rows,
    });
  }
  return prompts;
}

// ---- models -------------------------------------------------------------------------------

/** Standardization of the named features over the rows (mean, sd). */
function standardizer(rows, names) {
  const d = names.length;
  const mean = new Float64Array(d);
  const sd = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j] += r.f[names[j]] / rows.length;
  for (const r of rows)
    for (let j = 0; j < d; j++) sd[j] += (r.f[names[j]] - mean[j]) ** 2 / rows.length;
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]) || 1;
  const z = (f) => names.map((k, j) => (f[k] - mean[j]) / sd[j]);
  z.stats = { mean, sd };
  return z;
}

/** Solves A x = b (A symmetric positive definite, small) by Gaussian elimination. */
function solve(A, b) {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = c + 1; r < n; r++) {
      const k = M[r][c] / M[c][c];
      for (let j = c; j <= n; j++) M[r][j] -= k * M[c][j];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let j = r + 1; j < n; j++) s -= M[r][j] * x[j];
    x[r] = s / M[r][r];
  }
  return x;
}

/**
 * L2-regularized logistic regression on standardized features, fitted by Newton's method
 * (iteratively reweighted least squares; the bias is not penalized).
 */
function trainLogistic(rows, names, { l2 = 1, iterations = 25 } = {}) {
  const z = standardizer(rows, names);
  const X = rows.map((r) => [1, ...z(r.f)]);
  const y = rows.map((r) => r.label);
  const d = names.length + 1;
  let w = new Array(d).fill(0);
  for (let it = 0; it < iterations; it++) {
    const H = Array.from({ length: d }, () => new Array(d).fill(0));
    const g = new Array(d).fill(0);
    for (let i = 0; i < X.length; i++) {
      const x = X[i];
      let s = 0;
      for (let j = 0; j < d; j++) s += w[j] * x[j];
      const p = 1 / (1 + Math.exp(-s));
      const e = p - y[i];
      const v = Math.max(p * (1 - p), 1e-9);
      for (let j = 0; j < d; j++) {
        g[j] += e * x[j];
        for (let k = j; k < d; k++) H[j][k] += v * x[j] * x[k];
      }
    }
    for (let j = 0; j < d; j++) {
      for (let k = 0; k < j; k++) H[j][k] = H[k][j];
      if (j > 0) {
        H[j][j] += l2;
        g[j] += l2 * w[j];
      }
    }
    const step = solve(H, g);
    let moved = 0;
    w = w.map((wj, j) => {
      moved = Math.max(moved, Math.abs(step[j]));
      return wj - step[j];
    });
    if (moved < 1e-8) break;
  }
  const predict = (f) => {
    const x = [1, ...z(f)];
    let s = 0;
    for (let j = 0; j < d; j++) s += w[j] * x[j];
    return 1 / (1 + Math.exp(-s));
  };
  return {
    predict,
    bias: w[0],
    weights: Object.fromEntries(names.map((k, j) => [k, w[j + 1]])),
    standardized: names.map((k, j) => ({
      feature: k,
      mean: z.stats.mean[j],
      sd: z.stats.sd[j],
      weight: w[j + 1],
    })),
  };
}

/**
 * Gradient-boosted trees of depth 2 on the logistic loss (a tiny GBM): `rounds` trees, each node
 * split at one of 15 quantile cuts of one feature (histograms over pre-binned rows), leaves
 * shrunk by `rate`.
 */
function trainBoosted(rows, names, { rounds = 150, rate = 0.1, depth = 2, minLeaf = 20 } = {}) {
  const BINS = 16;
  const d = names.length;
  const cuts = names.map((k) => {
    const v = rows.map((r) => r.f[k]).sort((a, b) => a - b);
    return [
      ...new Set(
        Array.from({ length: BINS - 1 }, (_, i) => v[Math.floor(((i + 1) * v.length) / BINS)]),
      ),
    ];
  });
  const binOf = (j, x) => {
    let b = 0;
    while (b < cuts[j].length && x > cuts[j][b]) b++;
    return b; // x <= cuts[j][b] for b < length
  };
  const n = rows.length;
  const bins = rows.map((r) => Uint8Array.from(names, (k, j) => binOf(j, r.f[k])));
  const y = rows.map((r) => r.label);
  const pos = y.reduce((a, b) => a + b, 0);
  const prior = Math.log((pos + 1) / (n - pos + 1));
  const F = new Float64Array(n).fill(prior);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const grow = (idx, level) => {
    let G = 0;
    let H = 0;
    for (const i of idx) {
      G += g[i];
      H += h[i];
    }
    const leaf = { value: (rate * G) / (H + 1) };
    if (level === depth || idx.length < 2 * minLeaf) return leaf;
    const hg = new Float64Array(d * BINS);
    const hh = new Float64Array(d * BINS);
    const hn = new Int32Array(d * BINS);
    for (const i of idx) {
      const b = bins[i];
      for (let j = 0; j < d; j++) {
        const at = j * BINS + b[j];
        hg[at] += g[i];
        hh[at] += h[i];
        hn[at]++;
      }
    }
    let best;
    const base = (G * G) / (H + 1);
    for (let j = 0; j < d; j++) {
      let gl = 0;
      let hl = 0;
      let nl = 0;
      for (let b = 0; b < cuts[j].length; b++) {
        gl += hg[j * BINS + b];
        hl += hh[j * BINS + b];
        nl += hn[j * BINS + b];
        if (nl < minLeaf || idx.length - nl < minLeaf) continue;
        const gain = (gl * gl) / (hl + 1) + ((G - gl) * (G - gl)) / (H - hl + 1) - base;
        if (!best || gain > best.gain) best = { gain, j, b };
      }
    }
    if (!best || best.gain <= 1e-12) return leaf;
    const left = idx.filter((i) => bins[i][best.j] <= best.b);
    const right = idx.filter((i) => bins[i][best.j] > best.b);
    return {
      name: names[best.j],
      t: cuts[best.j][best.b],
      left: grow(left, level + 1),
      right: grow(right, level + 1),
    };
  };
  const value = (node, f) =>
    node.name === undefined
      ? node.value
      : value(f[node.name] <= node.t ? node.left : node.right, f);
  const trees = [];
  const all = rows.map((_, i) => i);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-F[i]));
      g[i] = y[i] - p;
      h[i] = p * (1 - p);
    }
    const tree = grow(all, 0);
    trees.push(tree);
    for (let i = 0; i < n; i++) F[i] += value(tree, rows[i].f);
  }
  const predict = (f) => {
    let s = prior;
    for (const t of trees) s += value(t, f);
    return 1 / (1 + Math.exp(-s));
  };
  return { predict, trees: trees.length };
}

// ---- selection and scoring ----------------------------------------------------------------

/**
 * Candidates whose probability clears `t`, best first, at most 5; with `veto`, only among those
 * today's rules select (the model can drop a selection, never add one).
 */
function select(prompt, prob, t, veto = false) {
  return (
    prompt.rows
      // A veto abstains on a selection made without evidence of its own (src/recall/learned-veto.ts).
      .map((r, i) => ({ id: r.id, p: veto && r.f.evidence < 1 ? 1 : prob[i], rule: r.f.rule }))
      .filter((c) => c.p >= t && (!veto || c.rule === 1))
      .sort((a, b) => b.p - a.p)
      .slice(0, MAX_RECALLED)
      .map((c) => c.id)
  );
}

function tally(outcomes) {
  const s = { selected: 0, correct: 0, gold: 0, recalled: 0, unrelated: 0, silent: 0 };
  for (const o of outcomes) {
    const gold = new Set(o.gold);
    s.selected += o.selected.length;
    s.correct += o.selected.filter((x) => gold.has(x)).length;
    s.gold += gold.size;
    s.recalled += [...gold].filter((g) => o.selected.includes(g)).length;
    if (gold.size === 0) {
      s.unrelated++;
      if (o.selected.length === 0) s.silent++;
    }
  }
  s.precision = s.selected ? s.correct / s.selected : 1;
  s.recall = s.gold ? s.recalled / s.gold : 1;
  return s;
}

const fmt = (s) =>
  `precision ${s.precision.toFixed(3)} (${s.correct}/${s.selected})  gold ${(100 * s.recall).toFixed(1)}% (${s.recalled}/${s.gold})  silent ${s.silent}/${s.unrelated}`;

/** Area under the ROC curve of (score, label) pairs (ties count half). Pure. */
function auc(pairs) {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  let pos = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j][0] === sorted[i][0]) j++;
    const mid = (i + j + 1) / 2;
    for (let k = i; k < j; k++)
      if (sorted[k][1] === 1) {
        rankSum += mid;
        pos++;
      }
    i = j;
  }
  const neg = sorted.length - pos;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg || 1);
}

// ---- main ---------------------------------------------------------------------------------

const sets = await developmentSets();
const all = sets.map(rowsOfSet);
if (dumpPath) {
  const lines = all
    .flat()
    .flatMap((p) =>
      p.rows.map((r) =>
        JSON.stringify({ set: p.set, prompt: p.prompt, id: r.id, label: r.label, ...r.f }),
      ),
    );
  writeFileSync(dumpPath, `${lines.join('\n')}\n`);
}

const FEATURES = Object.keys(all[0][0].rows[0].f).filter((k) => k !== 'rule');
// What the cut-off already receives (RankedMemory and the ranked list, the prompt's text), without
// the features computed here from the memories' headers (shared stems, idf, coverage, unknown words).
const RANKED_ONLY = FEATURES.filter(
  (k) =>
    ![
      'sharedStems',
      'maxIdf',
      'sumIdf',
      'promptCoverage',
      'memoryCoverage',
      'promptTerms',
      'unknownShare',
      'unknownTerms',
    ].includes(k),
);
const boosted = (o) => (rows, names) => trainBoosted(rows, names, o);
const variants = {
  logistic: { train: trainLogistic, names: FEATURES },
  'logistic, ranked-list features only': { train: trainLogistic, names: RANKED_ONLY },
  "logistic + today's rule as a feature": { train: trainLogistic, names: [...FEATURES, 'rule'] },
  'boosted trees': { train: trainBoosted, names: FEATURES },
  'boosted trees, ranked-list features only': { train: trainBoosted, names: RANKED_ONLY },
  "boosted trees + today's rule as a feature": {
    train: trainBoosted,
    names: [...FEATURES, 'rule'],
  },
  "logistic as a veto on today's selection": { train: trainLogistic, names: FEATURES, veto: true },
  "logistic, ranked-list features only, as a veto on today's selection": {
    train: trainLogistic,
    names: RANKED_ONLY,
    veto: true,
  },
  "boosted trees as a veto on today's selection": {
    train: trainBoosted,
    names: FEATURES,
    veto: true,
  },
  'boosted trees + rule, 60 rounds': {
    train: boosted({ rounds: 60 }),
    names: [...FEATURES, 'rule'],
  },
  'boosted trees + rule, depth 3': { train: boosted({ depth: 3 }), names: [...FEATURES, 'rule'] },
  'boosted trees + rule, rate 0.05, 300 rounds': {
    train: boosted({ rate: 0.05, rounds: 300 }),
    names: [...FEATURES, 'rule'],
  },
};
const only = process.env.CUTOFF_LEARN_ONLY;
if (only) for (const k of Object.keys(variants)) if (!k.includes(only)) delete variants[k];
const THRESHOLDS = Array.from({ length: 95 }, (_, i) => 0.01 * (i + 1));

const allPrompts = all.flat();
const todayOf = (prompts) => tally(prompts.map((p) => ({ gold: p.gold, selected: p.today })));
const shippedOf = (prompts) => tally(prompts.map((p) => ({ gold: p.gold, selected: p.shipped })));
const ceiling = tally(
  allPrompts.map((p) => ({
    gold: p.gold,
    selected: p.rows.map((r) => r.id).filter((id) => p.gold.includes(id)),
  })),
);
const today = todayOf(allPrompts);
const rowsAll = allPrompts.flatMap((p) => p.rows);
const featureAuc = Object.fromEntries(
  [...FEATURES, 'rule'].map((k) => [k, auc(rowsAll.map((r) => [r.f[k], r.label]))]),
);
const report = {
  sets: sets.map((s) => s.name),
  top: TOP,
  ceiling,
  today,
  featureAuc,
  variants: {},
};

/**
 * A variant trained on `trainPrompts` and its threshold, chosen on them only: the highest that keeps
 * as many of their gold memories as today's rules keep there (the comparison is then precision and
 * silence); a veto, which can only lose gold, may lose 2 % of it (#19's "~2 points").
 */
function trained(v, trainPrompts) {
  const model = v.train(
    trainPrompts.flatMap((p) => p.rows),
    v.names,
  );
  const trainProb = trainPrompts.map((p) => p.rows.map((r) => model.predict(r.f)));
  const keep = Math.ceil(todayOf(trainPrompts).recalled * (v.veto ? 0.98 : 1));
  let threshold = THRESHOLDS[0];
  for (const t of THRESHOLDS) {
    const s = tally(
      trainPrompts.map((p, i) => ({ gold: p.gold, selected: select(p, trainProb[i], t, v.veto) })),
    );
    if (s.recalled >= keep) threshold = t;
  }
  return { model, threshold };
}

// --emit-veto: the veto the offline ranker adopted (logistic over the ranked list's features,
// trained on every development set, its threshold chosen on them), as the constants of
// src/recall/learned-veto.ts.
if (args.includes('--emit-veto')) {
  const { model, threshold } = trained(
    { train: trainLogistic, names: RANKED_ONLY, veto: true },
    allPrompts,
  );
  console.log(
    JSON.stringify({ bias: model.bias, threshold, features: model.standardized }, null, 2),
  );
  // The shipped ranker must select what these constants select (once they are pasted in).
  const differ = allPrompts.filter((p) => {
    const mine = select(
      p,
      p.rows.map((r) => model.predict(r.f)),
      threshold,
      true,
    );
    return [...mine].sort().join() !== [...p.shipped].sort().join();
  }).length;
  console.error(
    `prompts where the shipped ranker selects otherwise: ${differ} of ${allPrompts.length}`,
  );
  process.exit(0);
}

// --measure FILE…: train on every development set (but the measured ones, if any is one) and
// measure on the sets named, once; for sets nobody may tune on, run by whoever measures them.
if (measured.length > 0) {
  for (const path of measured) {
    const set = await loadLabeledSet(path);
    const prompts = rowsOfSet(set);
    const train = all.filter((ps) => ps[0]?.set !== set.name).flat();
    console.log(`${set.name}: today's rules  ${fmt(todayOf(prompts))}`);
    console.log(`  the ranker as shipped (learned veto)  ${fmt(shippedOf(prompts))}`);
    for (const [label, v] of Object.entries(variants)) {
      const { model, threshold } = trained(v, train);
      const outs = prompts.map((p) => ({
        gold: p.gold,
        selected: select(
          p,
          p.rows.map((r) => model.predict(r.f)),
          threshold,
          v.veto,
        ),
      }));
      console.log(`  ${label} (t=${threshold.toFixed(2)})  ${fmt(tally(outs))}`);
    }
  }
  process.exit(0);
}

for (const [label, v] of Object.entries(variants)) {
  const curve = new Map(THRESHOLDS.map((t) => [t, []]));
  const chosen = [];
  const perSet = [];
  const scored = [];
  for (let k = 0; k < all.length; k++) {
    const trainPrompts = all.filter((_, j) => j !== k).flat();
    const { model, threshold: bestT } = trained(v, trainPrompts);
    const held = all[k];
    const outs = [];
    for (const p of held) {
      const prob = p.rows.map((r) => model.predict(r.f));
      for (let i = 0; i < p.rows.length; i++) scored.push([prob[i], p.rows[i].label]);
      for (const t of THRESHOLDS)
        curve.get(t).push({ gold: p.gold, selected: select(p, prob, t, v.veto) });
      outs.push({ gold: p.gold, selected: select(p, prob, bestT, v.veto) });
    }
    chosen.push(...outs);
    perSet.push({ set: sets[k].name, threshold: bestT, model: tally(outs), today: todayOf(held) });
  }
  const full = v.train(
    allPrompts.flatMap((p) => p.rows),
    v.names,
  );
  report.variants[label] = {
    chosen: tally(chosen),
    auc: auc(scored),
    curve: THRESHOLDS.map((t) => ({ t, ...tally(curve.get(t)) })),
    perSet,
    fullModel: full.weights ? { weights: full.weights, bias: full.bias } : { trees: full.trees },
  };
}

if (asJson) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`${sets.length} development sets, top ${TOP} candidates per prompt`);
  console.log(`ceiling (gold among the candidates): ${fmt(ceiling)}`);
  console.log(`today's rules:                       ${fmt(today)}`);
  console.log(
    `the ranker as shipped (learned veto, fitted on all of these): ${fmt(shippedOf(allPrompts))}`,
  );
  console.log('AUC of single features over all candidates (below 0.5: lower is better):');
  for (const [k, a] of Object.entries(featureAuc).sort(
    (x, y) => Math.abs(y[1] - 0.5) - Math.abs(x[1] - 0.5),
  ))
    console.log(`  ${k.padEnd(20)} ${a.toFixed(3)}`);
  for (const [label, r] of Object.entries(report.variants)) {
    console.log(`\n${label}, leave-one-set-out`);
    console.log(`  AUC of the held-out probabilities ${r.auc.toFixed(3)}`);
    console.log(`  threshold chosen on the training sets: ${fmt(r.chosen)}`);
    for (const s of r.perSet)
      console.log(
        `    ${s.set.padEnd(24)} t=${s.threshold.toFixed(2)}  ${fmt(s.model)}   today ${fmt(s.today)}`,
      );
    for (const c of r.curve.filter((c) => Math.round(c.t * 100) % 5 === 0 && c.t <= 0.6))
      console.log(`  t=${c.t.toFixed(2)}  ${fmt(c)}`);
  }
}
