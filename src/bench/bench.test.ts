import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanMemories } from '../memdir/scan.js';
import { generateMemories, writeBenchDirectory } from './generate.js';
import { startMcpMemoryBaseline } from './mcp-baseline.js';
import { filesystemFloor, offlineRecall, scanAndRankCold, scanAndRankWarm } from './measure.js';

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
    expect(await filesystemFloor(memoryDir)).toBeGreaterThan(120 * 100);
    const query = 'why does the kubelet keep evicting pods';
    const cold = await scanAndRankCold(memoryDir, query, NOW);
    expect(cold).toBeGreaterThan(0);
    expect(await scanAndRankWarm(memoryDir, query, NOW)).toBe(cold);
    expect(await offlineRecall(memoryDir, query, NOW)).toBeGreaterThan(0);

    const mcp = await startMcpMemoryBaseline(graphPath);
    try {
      const expected = memories.filter((m) =>
        [m.file, m.type, m.description, m.body].some((t) => t.toLowerCase().includes('kubelet')),
      ).length;
      const result = await mcp.search('kubelet');
      expect(result.entities).toBe(expected);
      expect(result.ms).toBeGreaterThan(0);
    } finally {
      await mcp.close();
    }
  });
});
