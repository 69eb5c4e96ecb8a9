import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEMP_PREFIX, writeFileAtomic } from './atomic-write.js';

describe('writeFileAtomic', () => {
  it('creates with the given mode, keeps a rewritten file’s own mode, and leaves no temp file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-atomic-'));
    const fresh = join(dir, 'fresh.md');
    await writeFileAtomic(fresh, 'one', { mode: 0o600 });
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    const shared = join(dir, 'shared.md');
    writeFileSync(shared, 'old');
    chmodSync(shared, 0o640);
    await writeFileAtomic(shared, 'new', { mode: 0o600 });
    expect(readFileSync(shared, 'utf8')).toBe('new');
    expect(statSync(shared).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).filter((n) => n.startsWith(TEMP_PREFIX))).toEqual([]);
  });
});
