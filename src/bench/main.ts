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
import { filesystemFloor, median, offlineRecall, scanAndRank, timeIt } from './measure.js';

const DEFAULT_SIZES = [200, 2_000, 10_000];
const QUERY = 'how do we roll back a failed canary deploy in staging';
/** server-memory matches the whole query as one substring; give it one word, its best case. */
const MCP_QUERY = 'canary';

export interface BenchRow {
  memories: number;
  runs: number;
  floorMs: number;
  scanRankMs: number;
  recallMs: number;
  mcpSearchMs: number;
  scanRankRatio: number;
  recallRatio: number;
  mcpRatio: number;
  selected: number;
  mcpEntities: number;
}

function runsFor(size: number, override: number | undefined): number {
  if (override !== undefined) return override;
  return size <= 200 ? 31 : size <= 2_000 ? 11 : 5;
}

async function benchSize(size: number, runs: number): Promise<BenchRow> {
  const root = await mkdtemp(join(tmpdir(), 'engram-bench-'));
  try {
    const nowMs = Date.now();
    const { memoryDir, graphPath } = await writeBenchDirectory(root, generateMemories(size, nowMs));
    // Warm the page cache and the JIT for every contender before timing anything.
    await filesystemFloor(memoryDir);
    await scanAndRank(memoryDir, QUERY, nowMs);
    const selected = await offlineRecall(memoryDir, QUERY, nowMs);
    const floor: number[] = [];
    const scanRank: number[] = [];
    const full: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Interleaved, so drift (other processes, thermal) hits every contender alike.
      floor.push(await timeIt(() => filesystemFloor(memoryDir)));
      scanRank.push(await timeIt(() => scanAndRank(memoryDir, QUERY, nowMs)));
      full.push(await timeIt(() => offlineRecall(memoryDir, QUERY, nowMs)));
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
    const floorMs = median(floor);
    const row = {
      memories: size,
      runs,
      floorMs,
      scanRankMs: median(scanRank),
      recallMs: median(full),
      mcpSearchMs: median(mcpTimes),
      selected,
      mcpEntities,
    };
    return {
      ...row,
      scanRankRatio: row.scanRankMs / floorMs,
      recallRatio: row.recallMs / floorMs,
      mcpRatio: row.mcpSearchMs / floorMs,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function formatTable(rows: readonly BenchRow[]): string {
  const f = (ms: number) => `${ms.toFixed(2)} ms`;
  const r = (x: number) => `${x.toFixed(2)}×`;
  const header =
    '| memories | runs | floor | scan + rank | full offline recall | server-memory search (MCP) |';
  const sep = '| ---: | ---: | ---: | ---: | ---: | ---: |';
  const lines = rows.map(
    (row) =>
      `| ${row.memories.toLocaleString('en-US')} | ${row.runs} | ${f(row.floorMs)} | ${f(row.scanRankMs)} (${r(row.scanRankRatio)}) | ${f(row.recallMs)} (${r(row.recallRatio)}) | ${f(row.mcpSearchMs)} (${r(row.mcpRatio)}) |`,
  );
  return [header, sep, ...lines].join('\n');
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
    const ok = at200.scanRankRatio <= 1.5;
    process.stdout.write(
      `\nGoal scan + rank ≤ 1.5× floor at 200: ${at200.scanRankRatio.toFixed(2)}× ${ok ? '(met)' : '(NOT met)'}\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
