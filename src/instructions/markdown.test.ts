import { describe, expect, it } from 'vitest';
import { comparisonKey, isTextFilePath, resolveIncludePath } from './include-path.js';
import { foldNested, includeScope } from './include-roots.js';
import { extractIncludeReferences, stripHtmlComments } from './markdown.js';
import { parseGlobs, processInstructionText } from './process-text.js';

describe('stripHtmlComments', () => {
  it('removes block comments, keeps text after -->, and leaves code alone', () => {
    const input = [
      'Intro',
      '',
      '<!-- hidden -->',
      '<!-- multi',
      'line --> visible tail',
      '',
      '    <!-- indented code -->',
      '',
      'Inline `<!-- span -->` and <!-- inline html --> stay.',
      '',
      '~~~',
      '<!-- fenced -->',
      '~~~',
      '',
    ].join('\n');
    const { content, stripped } = stripHtmlComments(input);
    expect(stripped).toBe(true);
    expect(content).not.toContain('hidden');
    expect(content).not.toContain('multi');
    expect(content).toContain(' visible tail');
    expect(content).toContain('<!-- indented code -->');
    expect(content).toContain('<!-- span -->');
    expect(content).toContain('<!-- inline html -->');
    expect(content).toContain('<!-- fenced -->');
  });

  it('keeps an unclosed comment rather than dropping the rest of the file', () => {
    const input = 'Rule one.\n\n<!-- never closed\n\nRule two.\n';
    expect(stripHtmlComments(input)).toEqual({ content: input, stripped: false });
  });
});

describe('extractIncludeReferences', () => {
  it('finds @paths in prose only, strips fragments, unescapes spaces and trailing punctuation', () => {
    const md = [
      '@first.md and see @./docs/a.md#setup.',
      'Home: @~/notes/x.md, absolute @/opt/team/y.md; spaced @my\\ file.md',
      '`@code.md` and',
      '```',
      '@fenced.md',
      '```',
      '> quoted @quote.md',
      'email me@example.com',
    ].join('\n');
    expect(extractIncludeReferences(md)).toEqual([
      'first.md',
      './docs/a.md',
      '~/notes/x.md',
      '/opt/team/y.md',
      'my file.md',
      'quote.md',
    ]);
  });
  it('keeps every @~/ path when several share a paragraph (no strikethrough pairing)', () => {
    const md =
      'Personal:\n@~/notes/a.md\n@~/notes/b.md\n@~/notes/c.md\nsee www.example.com @d.md @e\\_f.md';
    expect(extractIncludeReferences(md)).toEqual([
      '~/notes/a.md',
      '~/notes/b.md',
      '~/notes/c.md',
      'd.md',
      'e_f.md',
    ]);
    expect(extractIncludeReferences('请遵守 @文档/规则.md，以及 @my\\ docs/a.md。')).toEqual([
      '文档/规则.md',
      'my docs/a.md',
    ]);
  });
});

describe('include paths', () => {
  it('resolves relative to the including file, ~ to home, absolute as is', () => {
    expect(resolveIncludePath('x.md', '/r/a/CLAUDE.md', '/h')).toBe('/r/a/x.md');
    expect(resolveIncludePath('../x.md', '/r/a/CLAUDE.md', '/h')).toBe('/r/x.md');
    expect(resolveIncludePath('~/x.md', '/r/a/CLAUDE.md', '/h')).toBe('/h/x.md');
    expect(resolveIncludePath('/etc/x.md', '/r/a/CLAUDE.md', '/h')).toBe('/etc/x.md');
  });

  it('decides text by extension and knows extensionless text names', () => {
    expect(isTextFilePath('/a/b.md')).toBe(true);
    expect(isTextFilePath('/a/B.TS')).toBe(true);
    expect(isTextFilePath('/a/README')).toBe(true);
    expect(isTextFilePath('/a/logo.png')).toBe(false);
    expect(isTextFilePath('/etc/hostname')).toBe(false);
    expect(isTextFilePath('/a/id_rsa')).toBe(false);
  });

  it('folds case for identity only on case-insensitive platforms', () => {
    expect(comparisonKey('/R/Claude.md', 'darwin')).toBe(comparisonKey('/r/CLAUDE.md', 'darwin'));
    expect(comparisonKey('C:\\R\\A.md', 'win32')).toBe(comparisonKey('c:\\r\\a.md', 'win32'));
    expect(comparisonKey('/R/Claude.md', 'linux')).not.toBe(comparisonKey('/r/CLAUDE.md', 'linux'));
  });

  it('folds a nested root into its parent, never a sibling with a shared prefix', () => {
    expect(foldNested(['/repo/packages/app', '/repo', '/repo-evil', '/repo/'])).toEqual([
      '/repo',
      '/repo-evil',
    ]);
  });
});

describe('processInstructionText', () => {
  it('drops frontmatter, reads paths: for rules, and says when content differs', () => {
    const raw = '---\npaths:\n  - src/**\n---\nBody <!-- x -->\n';
    expect(processInstructionText(raw, { markdown: true, rule: true })).toEqual({
      content: 'Body <!-- x -->\n',
      globs: ['src/**'],
      differsFromDisk: true,
    });
    expect(processInstructionText('plain\n', { markdown: true, rule: false })).toEqual({
      content: 'plain\n',
      differsFromDisk: false,
    });
    expect(processInstructionText('<!-- a -->', { markdown: false, rule: false }).content).toBe(
      '<!-- a -->',
    );
  });

  it('parses globs from a list or a comma-separated string; match-all means unconditional', () => {
    expect(parseGlobs('src/**, lib/**')).toEqual(['src/**', 'lib/**']);
    expect(parseGlobs(['a/**', 3, ''])).toEqual(['a/**']);
    expect(parseGlobs(['**'])).toBeUndefined();
    expect(parseGlobs(undefined)).toBeUndefined();
  });

  it('expands braces, which gitignore-style matching does not know', () => {
    expect(parseGlobs('src/**/*.{ts,tsx}')).toEqual(['src/**/*.ts', 'src/**/*.tsx']);
    expect(parseGlobs(['a/{b,c{d,e}}/x', 'lib/**'])).toEqual([
      'a/b/x',
      'a/cd/x',
      'a/ce/x',
      'lib/**',
    ]);
    expect(parseGlobs('{x, y}/**')).toEqual(['x/**', ' y/**']);
    expect(parseGlobs('{literal}/x.md')).toEqual(['{literal}/x.md']);
    expect(parseGlobs('{a,b')).toEqual(['{a,b']);
    const alternatives = (p: string) => `{${Array.from({ length: 30 }, (_, i) => `${p}${i}`)}}`;
    const many = `${alternatives('a')}${alternatives('b')}`;
    expect(parseGlobs(many)?.length).toBe(256);
    expect(parseGlobs('logs/day-{1..3}.md')).toEqual([
      'logs/day-1.md',
      'logs/day-2.md',
      'logs/day-3.md',
    ]);
    // Twenty two-way groups would be a million globs: the pattern is kept as it is instead.
    const explosive = '{a,b}'.repeat(20);
    expect(parseGlobs(explosive)).toEqual([explosive]);
  });
});

describe('include scope', () => {
  const base = {
    homedir: '/h',
    engramHome: '/h/.engram',
    projectRoots: ['/h/work/app'],
    allow: false as boolean | string[],
  };

  it('keeps a project file inside the project and its own folder, home closed', () => {
    expect(includeScope('project', { ...base, ownDir: '/h/work/app/pkg' })).toEqual({
      roots: ['/h/work/app'],
      homeDotEntriesOpenBelow: ['/h/work/app', '/h/work/app/pkg'],
    });
    // A folder above the project vouches for its neighbours; the file system root never does.
    expect(includeScope('local', { ...base, ownDir: '/h/work' }).roots).toEqual(['/h/work']);
    expect(includeScope('project', { ...base, ownDir: '/' }).roots).toEqual(['/h/work/app']);
  });

  it('opens what the user listed, and everything for true, with home dot entries still closed', () => {
    const listed = includeScope('project', { ...base, allow: ['/h/.config/team', '/srv/docs'] });
    expect(listed.roots).toEqual(['/srv/docs', '/h/work/app', '/h/.config/team']);
    expect(listed.homeDotEntriesOpenBelow).toContain('/h/.config/team');
    const everywhere = includeScope('project', { ...base, allow: true });
    expect(everywhere.roots).toEqual(['/']);
    expect(everywhere.homeDotEntriesOpenBelow).toEqual(['/h/work/app']);
    // Listing ~ itself does not put home's dot entries among the open ones.
    expect(includeScope('project', { ...base, allow: ['/h'] }).homeDotEntriesOpenBelow).toEqual([
      '/h/work/app',
    ]);
  });

  it('trusts the user files with home and managed files with the machine', () => {
    expect(includeScope('user', base)).toEqual({ roots: ['/h'] });
    expect(includeScope('user', { ...base, projectRoots: ['/srv/app'] }).roots).toEqual([
      '/h',
      '/srv/app',
    ]);
    expect(includeScope('managed', base)).toEqual({ roots: ['/'] });
  });
});
