import type { BenchRow } from './main.js';

const ms = (v: number) => `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ms`;
const x = (v: number) => `${v.toFixed(2)}×`;
const n = (v: number) => v.toLocaleString('en-US');

/** The two tables `npm run bench` prints: work against the floor, processes against their peers. */
export function formatTables(
  rows: readonly BenchRow[],
  meta: { node: string; query: string; peerQuery: string; seconds: number },
): string {
  const inProcess = [
    '| memories | floor | stat-only floor | warm scan + rank (host) | warm recall (host) | cold recall (fresh process, no cache) | floor in a fresh process | cold recall ÷ fresh-process floor |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${n(r.memories)} | ${ms(r.floorMs)} | ${ms(r.statFloorMs)} (${x(r.ratios.statFloor)}) | ${ms(r.warmScanRankMs)} (${x(r.ratios.warmScanRank)}) | ${ms(r.warmRecallMs)} (${x(r.ratios.warmRecall)}) | ${ms(r.coldRecallMs)} (${x(r.ratios.coldRecall)}) | ${ms(r.coldFloorMs)} (${x(r.ratios.coldFloor)}) | ${x(r.ratios.coldRecallToColdFloor)} |`,
    ),
  ];
  const loop = [
    '| memories | worst loop delay, first turn (no cache) | later turns | same host idle (machine load) | most main-thread CPU between loop turns: first / later |',
    '| ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${n(r.memories)} | ${ms(r.loopDelayFirstTurnMs)} | ${ms(r.loopDelayLaterTurnsMs)} | ${ms(r.loopDelayIdleMs)} | ${ms(r.cpuStallFirstTurnMs)} / ${ms(r.cpuStallLaterTurnsMs)} |`,
    ),
  ];
  const processes = [
    "| memories | `node -e ''` | UserPromptSubmit hook, warm server | hook in-process (`ENGRAM_NO_DAEMON=1`) | in-process, no cache file | in-process, no claim verification (in-process ÷ this) | MCP memory_recall | server-memory search_nodes | MCP first call | MCP RSS (peak) | server-memory RSS |",
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${n(r.memories)} | ${ms(r.nodeMs)} | ${ms(r.hookServerMs)} (${x(r.ratios.hookServer)}) | ${ms(r.hookMs)} (${x(r.ratios.hook)}) | ${ms(r.hookNoCacheMs)} (${x(r.ratios.hookNoCache)}) | ${ms(r.hookNoVerifyMs)} (${x(r.ratios.verification)}) | ${ms(r.mcpRecallMs)} (${x(r.ratios.mcpRecall)}) | ${ms(r.peerSearchMs)}, ${r.peerEntities} hits | ${ms(r.mcpFirstRecallMs)} | ${r.mcpRssMiB.toFixed(0)} MiB (${r.mcpPeakRssMiB.toFixed(0)}) (${x(r.ratios.mcpRss)}) | ${r.peerRssMiB.toFixed(0)} MiB |`,
    ),
  ];
  return [
    `Node ${meta.node}; medians; ${meta.seconds} s. Query: "${meta.query}" (server-memory: "${meta.peerQuery}").`,
    'Floor = readdirSync + statSync + 4 KB readSync of every file, this process, interleaved; ratios to it. The fresh-process floor is the same code once in a new process, as a cold recall runs.',
    '',
    ...inProcess,
    '',
    'A host prefetching recall (a loop ticking every 10 ms, monitorEventLoopDelay):',
    '',
    ...loop,
    '',
    "Whole processes (ratio to `node -e ''`) and MCP over stdio (ratio to server-memory):",
    '',
    ...processes,
  ].join('\n');
}
