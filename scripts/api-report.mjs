#!/usr/bin/env node
/**
 * The public API report: for every subpath in package.json `exports`, the names its entry exports
 * (values and types), as written in the entry's source. Each subpath's list is committed under
 * api-report/, and test/package/api-report.test.ts fails when the exports and the lists differ,
 * so an export is a decision, not an accident.
 *
 *   npm run api:update     rewrite api-report/ from the sources (then review the diff and commit)
 *   npm run api:check      exit 1 and print the differences when they disagree
 *
 * Entries list their exports by name (`export { a, type B } from './x.js'`); `export *` is refused.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPORT_DIR = join(ROOT, 'api-report');
export const UPDATE_HINT =
  'If the change is deliberate, run `npm run api:update`, review the diff of api-report/ and commit it (a new root export must also be documented in docs/runtime.md).';

/** The subpaths and the source file of each entry, from package.json. */
export function entries() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const out = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (subpath === './package.json') continue;
    const js = typeof target === 'string' ? target : target.import;
    const source = js.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
    out.push({ subpath, name: subpath === '.' ? 'root' : subpath.slice(2), source });
  }
  return out;
}

const DECLARATION =
  /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
const NAMED = /export\s+(type\s+)?\{([^}]*)\}(?:\s*from\s*['"][^'"]+['"])?\s*;/g;
const STAR = /export\s+\*(?:\s+as\s+\w+)?\s+from\s+['"]([^'"]+)['"]/g;

/** The names an entry's source exports: `{ values, types, stars }`, sorted. Pure. */
export function exportsOf(text) {
  const values = new Set();
  const types = new Set();
  for (const m of text.matchAll(DECLARATION)) {
    (m[1] === 'interface' || m[1] === 'type' ? types : values).add(m[2]);
  }
  for (const m of text.matchAll(NAMED)) {
    for (const raw of m[2].split(',')) {
      const item = raw.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').trim();
      if (!item) continue;
      const isType = Boolean(m[1]) || /^type\s/.test(item);
      const name = item
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .at(-1)
        .trim();
      (isType ? types : values).add(name);
    }
  }
  const stars = [...text.matchAll(STAR)].map((m) => m[1]);
  const sort = (s) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { values: sort(values), types: sort(types), stars };
}

/** The report text of one subpath: one line per name, values first. */
export function reportText(subpath, api) {
  return [
    `# ${subpath === '.' ? 'engram' : `engram/${subpath.slice(2)}`}: exported names (npm run api:update rewrites this file)`,
    ...api.values.map((n) => `value ${n}`),
    ...api.types.map((n) => `type ${n}`),
    '',
  ].join('\n');
}

/** Every subpath's current API, from the sources. */
export function currentApi() {
  return entries().map((e) => ({
    ...e,
    api: exportsOf(readFileSync(join(ROOT, e.source), 'utf8')),
  }));
}

export function reportPath(name) {
  return join(REPORT_DIR, `${name.replace(/\//g, '-')}.api.txt`);
}

function readReport(name) {
  try {
    return readFileSync(reportPath(name), 'utf8');
  } catch {
    return undefined;
  }
}

/** What differs between the sources and the committed report, as lines for people. */
export function differences() {
  const problems = [];
  const current = currentApi();
  for (const e of current) {
    if (e.api.stars.length > 0) {
      problems.push(
        `${e.source} uses \`export * from\` (${e.api.stars.join(', ')}): list the exports by name.`,
      );
    }
    const want = reportText(e.subpath, e.api);
    const have = readReport(e.name);
    if (have === want) continue;
    const before = new Set((have ?? '').split('\n').filter((l) => l && !l.startsWith('#')));
    const after = new Set(want.split('\n').filter((l) => l && !l.startsWith('#')));
    const added = [...after].filter((l) => !before.has(l));
    const removed = [...before].filter((l) => !after.has(l));
    problems.push(
      `${e.subpath === '.' ? 'engram' : `engram/${e.subpath.slice(2)}`} (${e.source}) differs from ${reportPath(e.name).slice(ROOT.length + 1)}:` +
        (added.length ? `\n  + ${added.join('\n  + ')}` : '') +
        (removed.length ? `\n  - ${removed.join('\n  - ')}` : '') +
        (have === undefined ? '\n  (no report committed for this subpath yet)' : ''),
    );
  }
  const known = new Set(current.map((e) => `${e.name.replace(/\//g, '-')}.api.txt`));
  for (const file of safeList(REPORT_DIR)) {
    if (!known.has(file))
      problems.push(`api-report/${file} names a subpath package.json no longer exports.`);
  }
  return problems;
}

function safeList(dir) {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.api.txt'));
  } catch {
    return [];
  }
}

function update() {
  rmSync(REPORT_DIR, { recursive: true, force: true });
  mkdirSync(REPORT_DIR, { recursive: true });
  for (const e of currentApi()) writeFileSync(reportPath(e.name), reportText(e.subpath, e.api));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--update')) {
    update();
    const stars = currentApi().filter((e) => e.api.stars.length > 0);
    for (const e of stars) console.error(`api-report: ${e.source} still uses export *`);
    process.exitCode = stars.length > 0 ? 1 : 0;
  } else {
    const problems = differences();
    for (const p of problems) console.error(p);
    if (problems.length > 0) console.error(`\n${UPDATE_HINT}`);
    process.exitCode = problems.length > 0 ? 1 : 0;
  }
}
