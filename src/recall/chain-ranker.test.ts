/**
 * Recall over the memory chain (project, then user) ranks through the same header cache as one
 * directory: the analysis of each memory kept with its own layer's cache entry, the index saved for
 * the next one-shot process, and the time budget honoured while the index is built. Once a person
 * had a single user-layer memory, every hook turn rebuilt the whole index from scratch and ran past
 * its budget (the hook then injected nothing).
 */
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MemoryLayer } from '../config/memory-chain.js';
import { clearHeaderCaches, readCacheFile } from '../memdir/header-cache.js';
import { loadCandidates } from './candidates.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');

function memory(dir: string, file: string, description: string): void {
  const path = join(dir, file);
  writeFileSync(path, `---\nname: ${file}\ndescription: ${description}\ntype: project\n---\nx\n`);
  const mtime = (NOW - 86_400_000) / 1000;
  utimesSync(path, mtime, mtime);
}

function chain(): MemoryLayer[] {
  const project = mkdtempSync(join(tmpdir(), 'engram-chain-project-'));
  const user = mkdtempSync(join(tmpdir(), 'engram-chain-user-'));
  for (let i = 0; i < 60; i++) memory(project, `p-${i}.md`, `gizmo subsystem ${i} tuning notes`);
  memory(user, 'lang.md', 'The user wants answers written in Chinese');
  return [
    { layer: 'project', dir: project, trusted: true },
    { layer: 'user', dir: user, trusted: true },
  ];
}

const load = (layers: MemoryLayer[], expired: () => boolean) =>
  loadCandidates(layers, {
    query: 'gizmo subsystem 17 tuning',
    nowMs: NOW,
    isSurfaced: () => false,
    scanExpired: () => false,
    expired,
  });

describe('ranking over the project and user layers', () => {
  it('stops analyzing memories when the budget is spent and says the ranking is partial', async () => {
    clearHeaderCaches();
    const set = await load(chain(), () => true);
    expect(set.complete).toBe(false);
    expect(set.total).toBe(61);
  });

  it('a fresh process reuses the index the last one saved, within any budget', async () => {
    const layers = chain();
    clearHeaderCaches();
    const first = await load(layers, () => false);
    expect(first.complete).toBe(true);
    clearHeaderCaches(); // as a new hook process: only the cache files remain
    const again = await load(layers, () => true);
    expect(again.complete).toBe(true);
    const top = again.ranker.rank('gizmo subsystem 17 tuning', { nowMs: NOW, limit: 1 });
    expect(top[0]?.file).toBe('p-17.md');
    expect(again.ranker.rank('answers in Chinese', { nowMs: NOW, limit: 1 })[0]?.file).toBe(
      'lang.md',
    );
  });

  it("keeps the closest directory's own index beside the chain's, in memory and in its cache file", async () => {
    const layers = chain();
    clearHeaderCaches();
    const load1 = (source: string | MemoryLayer[]) =>
      loadCandidates(source, { query: 'gizmo', nowMs: NOW, isSurfaced: () => false });
    const own = await load1(layers[0]!.dir); // as the MCP server warms its directory
    const chained = await load1(layers); // as a recall over the chain
    expect(chained.ranker).not.toBe(own.ranker);
    expect((await load1(layers[0]!.dir)).ranker).toBe(own.ranker);
    expect((await load1(layers)).ranker).toBe(chained.ranker);
    const saved = [...readCacheFile(layers[0]!.dir)!.artifacts.keys()];
    expect(saved.some((k) => k.startsWith('index-'))).toBe(true);
    expect(saved.some((k) => k.startsWith('chain-index-'))).toBe(true);
  });
});
