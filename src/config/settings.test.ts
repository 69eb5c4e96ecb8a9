import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettingsFile } from './settings.js';

describe('reading one settings file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-settings-'));

  it('reads a missing file, or one below a file, as empty', () => {
    expect(readSettingsFile('user', join(dir, 'none.json'))).toEqual({
      source: 'user',
      path: join(dir, 'none.json'),
      exists: false,
      data: {},
    });
    writeFileSync(join(dir, 'plain'), 'x');
    expect(readSettingsFile('project', join(dir, 'plain', 'settings.json')).exists).toBe(false);
  });

  it('reads an object, and names the file when it is not valid JSON or not an object', () => {
    writeFileSync(join(dir, 'ok.json'), '{"recallDecay": {"userHalfLifeDays": 400}}');
    expect(readSettingsFile('local', join(dir, 'ok.json'))).toMatchObject({
      exists: true,
      data: { recallDecay: { userHalfLifeDays: 400 } },
    });
    writeFileSync(join(dir, 'bad.json'), '{nope');
    expect(() => readSettingsFile('project', join(dir, 'bad.json'))).toThrow(
      /bad\.json is not valid JSON/,
    );
    writeFileSync(join(dir, 'list.json'), '[]');
    expect(() => readSettingsFile('project', join(dir, 'list.json'))).toThrow(
      /must hold a JSON object/,
    );
  });

  it('reports a settings path it cannot read instead of taking it as empty', () => {
    // A folder where the file should be: it exists, and reading it fails (EISDIR), for any user.
    expect(() => readSettingsFile('user', dir)).toThrow(/Cannot read user settings .*EISDIR/);
  });
});
