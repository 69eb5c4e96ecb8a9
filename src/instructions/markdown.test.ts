import { describe, expect, it } from 'vitest';
import { accessProblem, homeScopeFor } from './include-access.js';
import { comparisonKey, isInside, isTextFilePath, resolveIncludePath } from './include-path.js';
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

  it('treats a sibling with a shared prefix as outside', () => {
    expect(isInside('/repo/a', '/repo')).toBe(true);
    expect(isInside('/repo', '/repo')).toBe(true);
    expect(isInside('/repo-evil/a', '/repo')).toBe(false);
    expect(isInside('/etc/hostname', '/repo')).toBe(false);
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

describe('include access', () => {
  const home = homeScopeFor('/h', ['/h/.claude', '/h/.engram']);
  const project = { roots: ['/r'], anywhere: false, ...(home ? { home } : {}) };

  it('opens the project and home, not the rest of the machine or private parts of home', () => {
    expect(accessProblem('/r/docs/x.md', project)).toBeUndefined();
    expect(accessProblem('/h/notes/x.md', project)).toBeUndefined();
    expect(accessProblem('/h/.claude/team.md', project)).toBeUndefined();
    expect(accessProblem('/etc/x.md', project)).toBe('outside');
    expect(accessProblem('/h/.ssh/config', project)).toMatch(/^~\/\.ssh, a hidden entry/);
    expect(accessProblem('/h/.claude/.credentials.json', project)).toMatch(
      /^~\/\.claude\/\.credentials/,
    );
    expect(accessProblem('/h/work/deploy.pem', project)).toMatch(/named like a credential/);
    expect(accessProblem('/h/Library/Keychains/login.txt', project)).toMatch(
      /keys and app secrets/,
    );
  });

  it('opens private parts only through a folder named inside home', () => {
    const everywhere = { ...project, anywhere: true };
    expect(accessProblem('/etc/x.md', everywhere)).toBeUndefined();
    expect(accessProblem('/h/.ssh/config', everywhere)).toBeDefined();
    expect(accessProblem('/h/.ssh/config', { ...project, roots: ['/', '/h'] })).toBeDefined();
    expect(accessProblem('/h/.ssh/config', { ...project, roots: ['/h/.ssh'] })).toBeUndefined();
    // A project that lives in a hidden folder vouches for its own files.
    expect(
      accessProblem('/h/.dotfiles/x.md', { ...project, roots: ['/h/.dotfiles'] }),
    ).toBeUndefined();
  });

  it('gives no home scope when home is the file system root', () => {
    expect(homeScopeFor('/', [])).toBeUndefined();
    expect(homeScopeFor('relative/home', [])).toBeUndefined();
  });
});
