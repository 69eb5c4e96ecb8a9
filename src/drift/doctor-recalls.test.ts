import { describe, expect, it } from 'vitest';
import { neverRecalledOf } from './doctor-recalls.js';

const AT = '2026-06-01T12:00:00.000Z';

describe('neverRecalledOf', () => {
  it("counts a recall only for the memory of the directory the line names for the file's layer", () => {
    const lines = [
      {
        at: AT,
        files: ['zeta.md', 'kafka.md'],
        layers: ['project', 'user'],
        layerDirs: { project: '/repos/a/memory', user: '/home/u/.engram/user/memory' },
      },
    ];
    expect(
      neverRecalledOf(lines, '/home/u/.engram/user/memory/', ['zeta.md', 'kafka.md', 'x.md']),
    ).toEqual(['zeta.md', 'x.md']);
    expect(neverRecalledOf(lines, '/repos/a/memory', ['zeta.md', 'kafka.md'])).toEqual([
      'kafka.md',
    ]);
  });

  it('reads a line that names no layer directories by file name, in any layer', () => {
    const lines = [{ at: AT, files: ['zeta.md'] }];
    expect(neverRecalledOf(lines, '/any/memory', ['zeta.md', 'kafka.md'])).toEqual(['kafka.md']);
  });

  it('says nothing from a log whose lines name no files', () => {
    expect(neverRecalledOf([{ at: AT }], '/any/memory', ['zeta.md'])).toEqual([]);
    expect(neverRecalledOf([], '/any/memory', ['zeta.md'])).toEqual([]);
  });
});
