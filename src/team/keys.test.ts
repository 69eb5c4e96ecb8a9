import { describe, expect, it } from 'vitest';
import { checkTeamKey } from './keys.js';

describe('team keys', () => {
  it('accepts relative .md paths', () => {
    for (const key of ['a.md', 'dir/sub/b-c_d.md', 'MEMORY.md', 'ü/notes.md']) {
      expect(checkTeamKey(key), key).toEqual({ ok: true, key });
    }
  });

  it('refuses anything that could leave the team folder or hide from scans', () => {
    const bad = [
      '',
      '../evil.md',
      'a/../../evil.md',
      './a.md',
      '/etc/passwd.md',
      'C:evil.md',
      'C:/x.md',
      'a\\..\\..\\evil.md',
      '\\\\server\\share.md',
      'a\u0000.md',
      'a\n.md',
      'a//b.md',
      'a/',
      '.hidden.md',
      'dir/.git/x.md',
      'notes.txt',
      'a.md ',
      'CON.md',
      `${'x'.repeat(600)}.md`,
    ];
    for (const key of bad) expect(checkTeamKey(key).ok, JSON.stringify(key)).toBe(false);
    expect(checkTeamKey(42).ok).toBe(false);
  });
});
