import { describe, expect, it } from 'vitest';
import { teamChecksum } from '../checksum.js';
import type { TeamStore } from './types.js';

/**
 * The one contract every team store passes. `open` gives a fresh, empty store for each test;
 * `openSecond` (when given) opens another handle on the same data, as a second server would.
 */
export function runTeamStoreContract(
  name: string,
  open: () => Promise<TeamStore>,
  openSecond?: (first: TeamStore) => Promise<TeamStore>,
): void {
  describe(`team store contract: ${name}`, () => {
    async function withStore(work: (store: TeamStore) => Promise<void>): Promise<void> {
      const store = await open();
      try {
        await work(store);
      } finally {
        await store.close();
      }
    }

    it('knows no repo until it is created, then starts empty at version 0', () =>
      withStore(async (store) => {
        expect(await store.getEntries('acme')).toBeUndefined();
        expect(await store.getHashes('acme')).toBeUndefined();
        await store.ensureRepo('acme');
        await store.ensureRepo('acme');
        expect(await store.getEntries('acme')).toEqual({ version: 0, entries: [] });
        expect(await store.getHashes('acme')).toEqual({ version: 0, checksums: {} });
      }));

    it('upserts the keys sent, keeps the others, and bumps the version once per write', () =>
      withStore(async (store) => {
        await store.ensureRepo('acme');
        const first = await store.putEntries(
          'acme',
          [
            { key: 'a.md', content: 'one' },
            { key: 'dir/b.md', content: 'two ü' },
          ],
          { maxEntries: 10 },
        );
        expect(first).toEqual({ kind: 'ok', version: 1 });
        const second = await store.putEntries('acme', [{ key: 'a.md', content: 'uno' }], {
          ifVersion: 1,
          maxEntries: 10,
        });
        expect(second).toEqual({ kind: 'ok', version: 2 });
        const all = await store.getEntries('acme');
        expect(all).toEqual({
          version: 2,
          entries: [
            { key: 'a.md', content: 'uno', checksum: teamChecksum('uno') },
            { key: 'dir/b.md', content: 'two ü', checksum: teamChecksum('two ü') },
          ],
        });
        expect(await store.getHashes('acme')).toEqual({
          version: 2,
          checksums: { 'a.md': teamChecksum('uno'), 'dir/b.md': teamChecksum('two ü') },
        });
      }));

    it('refuses a write against a stale version and changes nothing', () =>
      withStore(async (store) => {
        await store.ensureRepo('acme');
        await store.putEntries('acme', [{ key: 'a.md', content: 'one' }], { maxEntries: 10 });
        const stale = await store.putEntries('acme', [{ key: 'a.md', content: 'lost' }], {
          ifVersion: 0,
          maxEntries: 10,
        });
        expect(stale).toEqual({ kind: 'conflict', version: 1 });
        expect((await store.getEntries('acme'))?.entries[0]?.content).toBe('one');
      }));

    it('refuses a write that would pass the entry limit, counting only new keys', () =>
      withStore(async (store) => {
        await store.ensureRepo('acme');
        await store.putEntries(
          'acme',
          [
            { key: 'a.md', content: '1' },
            { key: 'b.md', content: '2' },
          ],
          { maxEntries: 3 },
        );
        const over = await store.putEntries(
          'acme',
          [
            { key: 'a.md', content: '1b' },
            { key: 'c.md', content: '3' },
            { key: 'd.md', content: '4' },
          ],
          { maxEntries: 3 },
        );
        expect(over).toEqual({ kind: 'too_many_entries', limit: 3, count: 4 });
        expect((await store.getHashes('acme'))?.version).toBe(1);
        const fits = await store.putEntries(
          'acme',
          [
            { key: 'a.md', content: '1b' },
            { key: 'c.md', content: '3' },
          ],
          { maxEntries: 3 },
        );
        expect(fits.kind).toBe('ok');
      }));

    it('deletes one key explicitly, and reports a missing key or repo as not found', () =>
      withStore(async (store) => {
        expect(await store.deleteEntry('acme', 'a.md')).toEqual({ kind: 'not_found' });
        await store.ensureRepo('acme');
        await store.putEntries(
          'acme',
          [
            { key: 'a.md', content: '1' },
            { key: 'b.md', content: '2' },
          ],
          { maxEntries: 10 },
        );
        expect(await store.deleteEntry('acme', 'a.md', { ifVersion: 0 })).toEqual({
          kind: 'conflict',
          version: 1,
        });
        expect(await store.deleteEntry('acme', 'a.md')).toEqual({ kind: 'ok', version: 2 });
        expect(await store.deleteEntry('acme', 'a.md')).toEqual({ kind: 'not_found' });
        expect(Object.keys((await store.getHashes('acme'))!.checksums)).toEqual(['b.md']);
      }));

    it('keeps repos apart', () =>
      withStore(async (store) => {
        await store.ensureRepo('acme');
        await store.ensureRepo('other');
        await store.putEntries('acme', [{ key: 'a.md', content: 'secret plan' }], {
          maxEntries: 10,
        });
        expect(await store.getEntries('other')).toEqual({ version: 0, entries: [] });
        expect(await store.deleteEntry('other', 'a.md')).toEqual({ kind: 'not_found' });
      }));

    it('stores tokens by hash with their repo and right', () =>
      withStore(async (store) => {
        await store.saveToken('h-read', { repo: 'acme', write: false });
        await store.saveToken('h-write', { repo: 'acme', write: true });
        expect(await store.findToken('h-read')).toEqual({ repo: 'acme', write: false });
        expect(await store.findToken('h-write')).toEqual({ repo: 'acme', write: true });
        expect(await store.findToken('nope')).toBeUndefined();
      }));

    it('lets exactly one of many concurrent writes on one version commit', () =>
      withStore(async (store) => {
        await store.ensureRepo('acme');
        const second = openSecond ? await openSecond(store) : store;
        try {
          const writes = Array.from({ length: 6 }, (_, i) =>
            (i % 2 === 0 ? store : second).putEntries(
              'acme',
              [{ key: `k${i}.md`, content: String(i) }],
              { ifVersion: 0, maxEntries: 100 },
            ),
          );
          const outcomes = await Promise.all(writes);
          expect(outcomes.filter((o) => o.kind === 'ok')).toHaveLength(1);
          expect(outcomes.filter((o) => o.kind === 'conflict')).toHaveLength(5);
          expect(await second.getHashes('acme')).toMatchObject({ version: 1 });
        } finally {
          if (second !== store) await second.close();
        }
      }));

    it('serialises unconditional writes: every one commits and the version counts them', () =>
      withStore(async (store) => {
        await store.ensureRepo('acme');
        const second = openSecond ? await openSecond(store) : store;
        try {
          const outcomes = await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              (i % 2 === 0 ? store : second).putEntries(
                'acme',
                [{ key: `k${i}.md`, content: String(i) }],
                { maxEntries: 100 },
              ),
            ),
          );
          expect(outcomes.every((o) => o.kind === 'ok')).toBe(true);
          const hashes = await store.getHashes('acme');
          expect(hashes?.version).toBe(10);
          expect(Object.keys(hashes!.checksums)).toHaveLength(10);
        } finally {
          if (second !== store) await second.close();
        }
      }));
  });
}
