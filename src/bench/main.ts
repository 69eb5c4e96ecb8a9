#!/usr/bin/env node
/**
 * `npm run bench`: the read path against the filesystem floor and an MCP memory server, on
 * generated directories of 200, 2,000 and 10,000 memories. Prints medians and ratios to the floor.
 * Options: --sizes 200,2000 --runs N (per size; default scales down for big dirs) --json
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMemories, writeBenchDirectory } from './generate.js';
import { startMcpMemoryBaseline } from './mcp-baseline.js';
import {
  filesystemFloor,
  median,
  offlineRecall,
  scanAndRankCold,
  scanAndRankWarm,
  scanOnly,
  timeIt,
} from './measure.js';

const DEFAULT_SIZES = [200, 2_000, 10_000];
const QUERY = 'why does the kubelet keep evicting pods';
/** server-memory matches the whole query as one substring; give it one word, its best case. */
const MCP_QUERY = 'kubelet';

export interface BenchRow {
  memories: number;
  runs: number;
  floorMs: number;
  scanMs: number;
  coldMs: number;
  warmMs: number;
  recallMs: number;
  mcpSearchMs: number;
  selected: number;
  mcpEntities: number;
  /** Each median divided by the floor's, as the table prints them. */
  ratios: { scan: number; cold: number; warm: number; recall: number; mcpSearch: number };
}

function runsFor(size: number, override: number | undefined): number {
  if (override !== undefined) return override;
  // Cheap sizes get many runs: medians of many samples shrug off load spikes from other processes.
  return size <= 200 ? 101 : size <= 2_000 ? 15 : 5;
}

async function benchSize(size: number, runs: number): Promise<BenchRow> {
  const root = await mkdtemp(join(tmpdir(), 'engram-bench-'));
  try {
    const nowMs = Date.now();
    const { memoryDir, graphPath } = await writeBenchDirectory(root, generateMemories(size, nowMs));
    // Warm the page cache, the JIT and the host's ranker index before timing anything.
    await filesystemFloor(memoryDir);
    await scanAndRankCold(memoryDir, QUERY, nowMs);
    await scanAndRankWarm(memoryDir, QUERY, nowMs);
    const selected = await offlineRecall(memoryDir, QUERY, nowMs);
    const t = {
      floor: [] as number[],
      scan: [] as number[],
      cold: [] as number[],
      warm: [] as number[],
      recall: [] as number[],
    };
    for (let i = 0; i < runs; i++) {
      // Interleaved, so drift (other processes, thermal) hits every contender alike.
      t.floor.push(await timeIt(() => filesystemFloor(memoryDir)));
      t.scan.push(await timeIt(() => scanOnly(memoryDir)));
      t.cold.push(await timeIt(() => scanAndRankCold(memoryDir, QUERY, nowMs)));
      t.warm.push(await timeIt(() => scanAndRankWarm(memoryDir, QUERY, nowMs)));
      t.recall.push(await timeIt(() => offlineRecall(memoryDir, QUERY, nowMs)));
    }
    const mcp = await startMcpMemoryBaseline(graphPath);
    const mcpTimes: number[] = [];
    let mcpEntities = 0;
    try {
      await mcp.search(MCP_QUERY);
      for (let i = 0; i < runs; i++) {
        const r = await mcp.search(MCP_QUERY);
        mcpTimes.push(r.ms);
        mcpEntities = r.entities;
      }
    } finally {
      await mcp.close();
    }
    const floorMs = median(t.floor);
    const m = {
      scanMs: median(t.scan),
      coldMs: median(t.cold),
      warmMs: median(t.warm),
      recallMs: median(t.recall),
      mcpSearchMs: median(mcpTimes),
    };
    const ratio = (ms: number) => Math.round((ms / floorMs) * 100) / 100;
    return {
      memories: size,
      runs,
      floorMs,
      ...m,
      selected,
      mcpEntities,
      ratios: {
        scan: ratio(m.scanMs),
        cold: ratio(m.coldMs),
        warm: ratio(m.warmMs),
        recall: ratio(m.recallMs),
        mcpSearch: ratio(m.mcpSearchMs),
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function formatTable(rows: readonly BenchRow[]): string {
  const cell = (ms: number, floor: number) => `${ms.toFixed(1)} ms (${(ms / floor).toFixed(2)}×)`;
  const header =
    '| memories | runs | floor | scan | scan + rank, cold | scan + rank, warm | offline recall, warm | server-memory search (MCP) |';
  const sep = '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |';
  const lines = rows.map((r) =>
    [
      r.memories.toLocaleString('en-US'),
      r.runs,
      `${r.floorMs.toFixed(1)} ms`,
      cell(r.scanMs, r.floorMs),
      cell(r.coldMs, r.floorMs),
      cell(r.warmMs, r.floorMs),
      cell(r.recallMs, r.floorMs),
      `${cell(r.mcpSearchMs, r.floorMs)}, ${r.mcpEntities} hits`,
    ].join(' | '),
  );
  return [header, sep, ...lines.map((l) => `| ${l} |`)].join('\n');
}

function parseArgs(argv: readonly string[]) {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sizes = get('--sizes')
    ?.split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  const runs = get('--runs');
  return {
    sizes: sizes && sizes.length > 0 ? sizes : DEFAULT_SIZES,
    runs: runs === undefined ? undefined : Math.max(1, Number(runs)),
    json: argv.includes('--json'),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const rows: BenchRow[] = [];
  for (const size of args.sizes) {
    process.stderr.write(`bench: ${size} memories…\n`);
    rows.push(await benchSize(size, runsFor(size, args.runs)));
  }
  if (args.json) {
    process.stdout.write(
      `${JSON.stringify({ node: process.version, query: QUERY, rows }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(`Node ${process.version}; medians; ratio = time / filesystem floor.\n`);
  process.stdout.write(`Query: "${QUERY}" (server-memory: "${MCP_QUERY}").\n\n`);
  process.stdout.write(`${formatTable(rows)}\n`);
  const at200 = rows.find((row) => row.memories === 200);
  if (at200) {
    const ratio = (ms: number) => (ms / at200.floorMs).toFixed(2);
    process.stdout.write(
      `\nGoal, scan + rank ≤ 1.5× floor at 200: warm ${ratio(at200.warmMs)}×, cold ${ratio(at200.coldMs)}×.\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
