import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scanMemories } from '../memdir/scan.js';
import { recall } from '../recall/recall.js';
import { filesystemFloor, statFloor } from './floor.js';
import { formatTables } from './format.js';
import { generateMemories, writeBenchDirectory } from './generate.js';
import type { BenchRow } from './main.js';
import { startMcpMemoryBaseline } from './mcp-baseline.js';
import { median } from './stats.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

describe('bench harness', () => {
  it('generates the same directory every time', () => {
    expect(generateMemories(50, NOW)).toEqual(generateMemories(50, NOW));
    // Memories 3, 100, 197 and 294 carry the rare topic.
    expect(generateMemories(300, NOW).filter((m) => m.description.includes('kubelet')).length).toBe(
      4,
    );
  });

  it('measures the same files with every contender', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-bench-test-'));
    const memories = generateMemories(120, NOW);
    const { memoryDir, graphPath } = await writeBenchDirectory(root, memories);
    expect(
      (await scanMemories(memoryDir, { cap: Number.POSITIVE_INFINITY })).memories,
    ).toHaveLength(120);
    // The floor reads the head of every file; the stat-only floor reads none.
    expect(filesystemFloor(memoryDir)).toBeGreaterThan(120 * 100);
    expect(statFloor(memoryDir)).toBeCloseTo(Math.max(...memories.map((m) => m.mtimeMs)), -1);
    // The fresh-process floor (the built probe, as `npm run bench` runs it) reads the same bytes.
    const probe = fileURLToPath(new URL('../../dist/bench/host-probe.js', import.meta.url));
    const fresh = JSON.parse(
      execFileSync(process.execPath, [probe, 'floor', memoryDir], { encoding: 'utf8' }),
    );
    expect(fresh.bytes).toBe(filesystemFloor(memoryDir));
    const query = 'why does the kubelet keep evicting pods';
    expect((await recall({ dir: memoryDir, query, now: NOW })).selected.length).toBeGreaterThan(0);

    const mcp = await startMcpMemoryBaseline(graphPath);
    try {
      const expected = memories.filter((m) =>
        [m.file, m.type, m.description, m.body].some((t) => t.toLowerCase().includes('kubelet')),
      ).length;
      const result = await mcp.search('kubelet');
      expect(result.entities).toBe(expected);
      expect(result.ms).toBeGreaterThan(0);
      expect(mcp.memory().rssMiB).toBeGreaterThan(1);
    } finally {
      await mcp.close();
    }
  });

  it('prints every figure with its ratio to its own baseline', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const row: BenchRow = {
      memories: 2000,
      runs: { inProcess: 5, processes: 3 },
      floorMs: 10,
      statFloorMs: 4,
      warmRecallMs: 5,
      coldRecallMs: 15,
      coldFloorMs: 20,
      nodeMs: 40,
      hookServerMs: 44,
      hookMs: 60,
      hookNoCacheMs: 80,
      hookNoVerifyMs: 59,
      mcpRecallMs: 2,
      mcpFirstRecallMs: 30,
      peerSearchMs: 4,
      mcpRssMiB: 90,
      mcpPeakRssMiB: 100,
      peerRssMiB: 60,
      loopDelayFirstTurnMs: 12,
      loopDelayLaterTurnsMs: 3,
      loopDelayIdleMs: 2,
      cpuStallFirstTurnMs: 6,
      cpuStallLaterTurnsMs: 1,
      warmScanRankMs: 3,
      selected: 5,
      peerEntities: 21,
      ratios: {
        statFloor: 0.4,
        warmRecall: 0.5,
        warmScanRank: 0.3,
        coldRecall: 1.5,
        coldRecallToColdFloor: 0.75,
        coldFloor: 2,
        hookServer: 1.1,
        hook: 1.5,
        hookNoCache: 2,
        verification: 1.02,
        mcpRecall: 0.5,
        mcpRss: 1.5,
      },
    };
    const text = formatTables([row], { node: 'v20', query: 'q', peerQuery: 'p', seconds: 9 });
    expect(text).toContain(
      '| 2,000 | 10.0 ms | 4.0 ms (0.40×) | 3.0 ms (0.30×) | 5.0 ms (0.50×) | 15.0 ms (1.50×) | 20.0 ms (2.00×) | 0.75× |',
    );
    expect(text).toContain('| 2,000 | 12.0 ms | 3.0 ms | 2.0 ms | 6.0 ms / 1.0 ms |');
    expect(text).toContain('| 40.0 ms | 44.0 ms (1.10×) | 60.0 ms (1.50×) |');
    expect(text).toContain('| 59.0 ms (1.02×) |');
    expect(text).toContain('90 MiB (100) (1.50×)');
  });
});
