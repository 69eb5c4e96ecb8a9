import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimCachePath, readClaimCache, writeClaimCache } from './claim-cache.js';
import { markClaimRefresh } from './refresh-marker.js';

let root: string;
let memoryDir: string;
let outside: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-claim-cache-'));
  memoryDir = join(root, 'memory');
  outside = join(root, 'outside');
  await mkdir(memoryDir);
  await mkdir(outside);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const entry = {
  identity: 'abc',
  state: 'head',
  checkedAt: '2026-12-02T00:00:00.000Z',
  checks: [],
};

describe('the claim cache and the refresh marker', () => {
  it("are written in the memory directory's own .engram folder (positive control)", async () => {
    await writeClaimCache(claimCachePath(memoryDir), { 'a.md': entry });
    await markClaimRefresh(memoryDir, 'quick');
    expect(readClaimCache(claimCachePath(memoryDir)).entries['a.md']?.identity).toBe('abc');
    expect((await readdir(join(memoryDir, '.engram'))).sort()).toEqual([
      'claim-checks.json',
      'claim-refresh.json',
    ]);
  });

  it('are never written through a .engram folder that is a link out of the directory', async () => {
    await symlink(outside, join(memoryDir, '.engram'));
    await expect(writeClaimCache(claimCachePath(memoryDir), { 'a.md': entry })).rejects.toThrow(
      /symbolic link/,
    );
    await expect(markClaimRefresh(memoryDir, 'quick')).rejects.toThrow(/symbolic link/);
    expect(await readdir(outside)).toEqual([]);
  });
});
