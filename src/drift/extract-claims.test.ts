import { describe, expect, it } from 'vitest';
import { extractClaims, identifierInSpan } from './extract-claims.js';

const keys = (body: string) =>
  extractClaims(body).map((c) =>
    c.kind === 'path'
      ? `path ${c.path}`
      : c.kind === 'line'
        ? `line ${c.path}:${c.line}`
        : c.kind === 'identifier'
          ? `${c.role} ${c.identifier}`
          : `script ${c.script}`,
  );

describe('extractClaims', () => {
  it('finds a file:line citation and a function in backticks', () => {
    expect(keys('The blit happens in `src/render.ts:142`, see `renderBlit()`.')).toEqual([
      'line src/render.ts:142',
      'function renderBlit',
    ]);
  });

  it('finds citations and paths outside backticks too, without counting a cited file twice', () => {
    expect(keys('See src/render.ts:142-150 and lib/util/x.py; src/render.ts is big.')).toEqual([
      'line src/render.ts:142',
      'path lib/util/x.py',
    ]);
  });

  it('reads GitHub-style #L anchors as line citations', () => {
    expect(keys('In `src/a.ts#L12` the cache is built.')).toEqual(['line src/a.ts:12']);
  });

  it('knows flags, environment variables, classes, camelCase and member calls', () => {
    expect(
      keys(
        'Use `--no-verify`, set `ENGRAM_HOME` or `$HOME_DIR`, the `RankerCache` class, `loadCandidates`, `cache.get_entry`, `this.flushAll()`.',
      ),
    ).toEqual([
      'flag --no-verify',
      'env ENGRAM_HOME',
      'env HOME_DIR',
      'class RankerCache',
      'symbol loadCandidates',
      'symbol get_entry',
      'function flushAll',
    ]);
  });

  it('turns package scripts and the flags of project commands into claims', () => {
    expect(
      keys('Run `npm run bench`, then `engram doctor --fix --json`; not `npm install`.'),
    ).toEqual(['script bench', 'flag --fix', 'flag --json']);
  });

  it('ignores plain words, URLs, home and absolute paths, and fenced code', () => {
    const body = [
      'The `type` is a `Memory`; see https://example.com/docs/page.html and `~/.ssh/config`.',
      'Also `/etc/hosts`, e.g. and/or, version 1.2.3, `and/or`.',
      '```ts',
      'renderBlit(); // src/inside-fence.ts:3',
      '```',
    ].join('\n');
    expect(keys(body)).toEqual([]);
  });

  it('takes bare file names only with a known extension', () => {
    expect(keys('Edit `package.json` and `render.ts:9`, not `example.com`.')).toEqual([
      'line render.ts:9',
      'path package.json',
    ]);
  });

  it('stops at the per-memory cap and de-duplicates', () => {
    const body = Array.from({ length: 40 }, (_, i) => `\`src/f${i}.ts\` \`src/f${i}.ts\``).join(
      ' ',
    );
    const claims = extractClaims(body, 5);
    expect(claims.map((c) => (c.kind === 'path' ? c.path : ''))).toEqual([
      'src/f0.ts',
      'src/f1.ts',
      'src/f2.ts',
      'src/f3.ts',
      'src/f4.ts',
    ]);
  });

  it('ignores parent-relative paths that could leave the project', () => {
    expect(keys('See `../secrets/key.pem` and ../other/x.ts:3.')).toEqual([]);
  });
});

describe('identifierInSpan', () => {
  it('refuses short calls and single words', () => {
    expect(identifierInSpan('f()')).toBeUndefined();
    expect(identifierInSpan('Command')).toBeUndefined();
    expect(identifierInSpan('HOME')).toBeUndefined();
  });
});

describe('flags of commands', () => {
  it('belong to the project only when the program is not a well-known outside tool', () => {
    const flags = (body: string) =>
      extractClaims(body).flatMap((c) => (c.kind === 'identifier' ? [c.identifier] : []));
    expect(flags('Run `docker run --rm app` and `git push --force-with-lease`.')).toEqual([]);
    expect(flags('Run `sudo apt-get install --yes x`.')).toEqual([]);
    expect(flags('Run `./bin/deploy --canary` or `mytool --dry-run`.')).toEqual([
      '--canary',
      '--dry-run',
    ]);
  });
});
