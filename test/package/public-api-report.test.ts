/**
 * The public API is a decision: every subpath lists its exports by name, the names are committed
 * under api-report/, and the package root is small and documented. Adding (or dropping) an export
 * without updating the report fails here, with the command that updates it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  currentApi,
  differences,
  entries,
  exportsOf,
  ROOT,
  reportText,
  UPDATE_HINT,
} from '../../scripts/api-report.mjs';

describe('the public API report', () => {
  it('every subpath lists its exports by name and matches its committed report', () => {
    const problems = differences();
    expect(problems, `${problems.join('\n')}\n\n${UPDATE_HINT}`).toEqual([]);
  });

  it('an export added to an entry without updating the report is a difference that names the fix', () => {
    const root = entries().find((e) => e.subpath === '.')!;
    const source = readFileSync(join(ROOT, root.source), 'utf8');
    const grown = exportsOf(`${source}\nexport { parseSimpleYaml } from './memdir/header.js';\n`);
    const committed = readFileSync(join(ROOT, 'api-report', 'root.api.txt'), 'utf8');
    expect(reportText('.', grown)).not.toBe(committed);
    expect(reportText('.', grown)).toContain('value parseSimpleYaml');
    expect(UPDATE_HINT).toMatch(/npm run api:update/);
    // A star re-export is refused outright: it would export whatever the module grows.
    expect(exportsOf("export * from './memdir/index.js';").stars).toEqual(['./memdir/index.js']);
  });

  it('what each built subpath exports at run time is exactly its report’s values', {
    timeout: 90_000,
  }, async () => {
    for (const e of currentApi()) {
      const specifier = e.subpath === '.' ? 'engram' : `engram/${e.subpath.slice(2)}`;
      const mod = (await import(specifier)) as Record<string, unknown>;
      expect(Object.keys(mod).sort(), specifier).toEqual([...e.api.values].sort());
    }
  });

  it('the root is small, and every name in it is documented in docs/runtime.md', () => {
    const root = currentApi().find((e) => e.subpath === '.')!;
    const names = [...root.api.values, ...root.api.types];
    expect(root.api.values.length).toBeLessThanOrEqual(25);
    expect(names.length).toBeLessThanOrEqual(60);
    const docs = readFileSync(join(ROOT, 'docs', 'runtime.md'), 'utf8');
    const undocumented = names.filter((n) => !docs.includes(`\`${n}\``));
    expect(undocumented, 'document these root exports in docs/runtime.md').toEqual([]);
    // Internals that once leaked through `export *` stay out of the root.
    for (const internal of ['parseSimpleYaml', 'PLACEHOLDER_API_KEY', 'isInside', 'unescapeAttr'])
      expect(names).not.toContain(internal);
  });

  it('no subpath exports a file reader that goes around the confinement', () => {
    // readPrefix opened any path it was given (no deny-list, links followed); every read of a
    // project or memory file goes through src/confine instead.
    for (const e of currentApi()) expect(e.api.values, e.subpath).not.toContain('readPrefix');
  });
});
