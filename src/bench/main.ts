#!/usr/bin/env node
/**
 * `npm run bench`: the read path against the filesystem floor (synchronous readdir + stat + 4 KB
 * head read of every file, in this process, interleaved with the contenders), whole processes
 * against `node -e ''`, and engram's MCP server against `@modelcontextprotocol/server-memory`.
 * Options: --sizes 200,2000 --runs N (in-process samples per size) --json --help (`args.ts`)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADER_CACHE_FILE } from '../memdir/header-cache.js';
import { loadCandidates, recall } from '../recall/index.js';
import { BENCH_USAGE, parseBenchArgs } from './args.js';
import { filesystemFloor, statFloor } from './floor.js';
import { formatTables } from './format.js';
import { generateMemories, writeBenchDirectory } from './generate.js';
import { startMcpMemoryBaseline } from './mcp-baseline.js';
import { runProcess, startMcpProcess, stopHookServers, waitForHookServer } from './processes.js';
import { median, round, timeIt } from './stats.js';

const DEFAULT_SIZES = [200, 2_000, 10_000];
export const QUERY = 'why does the kubelet keep evicting pods';
/** server-memory matches the whole query as one substring; give it one word, its best case. */
export const MCP_QUERY = 'kubelet';
const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
/** The hook entry the plugin runs (hooks/hooks.json). */
const HOOK = fileURLToPath(new URL('../cli/hook.cjs', import.meta.url));
const PROBE = fileURLToPath(new URL('./host-probe.js', import.meta.url));
/** The header cache trusts no file changed this recently; generated files must age past it. */
const SETTLE_MS = 2_100;

export interface BenchRow {
  memories: number;
  runs: { inProcess: number; processes: number };
  floorMs: number;
  statFloorMs: number;
  warmRecallMs: number;
  coldRecallMs: number;
  /** The floor once in a fresh process (modules loaded): what a cold recall's own I/O costs at least. */
  coldFloorMs: number;
  nodeMs: number;
  /** The hook answered by the warm hook server (every turn after the first, by default). */
  hookServerMs: number;
  /** The hook in its own process (`ENGRAM_NO_DAEMON=1`), the header cache file in place. */
  hookMs: number;
  hookNoCacheMs: number;
  /** The hook with claim verification off: the difference is what verification costs a turn. */
  hookNoVerifyMs: number;
  mcpRecallMs: number;
  mcpFirstRecallMs: number;
  peerSearchMs: number;
  mcpRssMiB: number;
  mcpPeakRssMiB: number;
  peerRssMiB: number;
  /** Worst event-loop delay during the host's first recall (no cache) and its later ones. */
  loopDelayFirstTurnMs: number;
  loopDelayLaterTurnsMs: number;
  /** The same host idle for as long: what the machine's load alone costs its loop. */
  loopDelayIdleMs: number;
  /** Most CPU time the host's main thread ran between two turns of its loop (our work or GC; load-independent). */
  cpuStallFirstTurnMs: number;
  cpuStallLaterTurnsMs: number;
  /** Scan + rank alone in the host (the part the header cache serves), warm. */
  warmScanRankMs: number;
  selected: number;
  peerEntities: number;
  ratios: {
    statFloor: number;
    warmRecall: number;
    warmScanRank: number;
    coldRecall: number;
    /** Cold recall ÷ the floor in a fresh process. */
    coldRecallToColdFloor: number;
    /** The fresh process's floor ÷ the warm floor: how far below it no fresh process can go. */
    coldFloor: number;
    hookServer: number;
    hook: number;
    hookNoCache: number;
    /** hook ÷ hook without verification: 1.00 when verification adds nothing to the turn. */
    verification: number;
    mcpRecall: number;
    mcpRss: number;
  };
}

/** The project the hook runs in: a git repository, so claim verification reads a real state. */
function benchProject(root: string): string {
  const project = join(root, 'project');
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args],
      {
        cwd: project,
        stdio: 'ignore',
      },
    );
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'pods.ts'), 'export function evictPods() {}\n');
  try {
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'bench');
  } catch {
    // no git: verification then has no project state and adds nothing, which is still measured
  }
  return project;
}

function runsFor(size: number, override: number | undefined) {
  // Cheap sizes get many samples: medians of many shrug off load spikes from other processes.
  const inProcess = override ?? (size <= 200 ? 41 : size <= 2_000 ? 11 : 5);
  const processes = size <= 200 ? 9 : size <= 2_000 ? 5 : 3;
  return { inProcess, processes };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function benchSize(size: number, runs: ReturnType<typeof runsFor>): Promise<BenchRow> {
  const root = await mkdtemp(join(tmpdir(), 'engram-bench-'));
  try {
    const nowMs = Date.now();
    const { memoryDir, graphPath } = await writeBenchDirectory(root, generateMemories(size, nowMs));
    const home = join(root, 'home');
    await mkdir(home);
    // A clean environment: no settings of the person running the bench, no model.
    const env = { PATH: process.env.PATH ?? '', HOME: home, ENGRAM_HOME: join(home, '.engram') };
    const dropCache = () => rmSync(join(memoryDir, HEADER_CACHE_FILE), { force: true });
    await sleep(SETTLE_MS);

    // In this process: the floors and a long-running host's warm recall, interleaved.
    filesystemFloor(memoryDir);
    statFloor(memoryDir);
    const selected = (await recall({ dir: memoryDir, query: QUERY, now: nowMs })).selected.length;
    await recall({ dir: memoryDir, query: QUERY, now: nowMs });
    const scanRank = async () => {
      const set = await loadCandidates(memoryDir, { query: QUERY, nowMs, isSurfaced: () => false });
      return set.ranker.rank(QUERY, { nowMs });
    };
    const t = {
      floor: [] as number[],
      stat: [] as number[],
      warm: [] as number[],
      scanRank: [] as number[],
    };
    for (let i = 0; i < runs.inProcess; i++) {
      t.floor.push(await timeIt(() => filesystemFloor(memoryDir)));
      t.stat.push(await timeIt(() => statFloor(memoryDir)));
      t.warm.push(await timeIt(() => recall({ dir: memoryDir, query: QUERY, now: nowMs })));
      t.scanRank.push(await timeIt(scanRank));
    }

    // Fresh processes: cold recall (no cache anywhere) and the whole UserPromptSubmit hook.
    const hookInput = JSON.stringify({
      hook_event_name: 'UserPromptSubmit',
      session_id: 'bench',
      cwd: benchProject(root),
      prompt: QUERY,
    });
    const hookArgs = [HOOK, 'hook', 'user-prompt-submit', '--dir', memoryDir, '--no-model'];
    // The in-process rows: today's one process per prompt, with or without the cache file.
    const inProcessEnv = { ...env, ENGRAM_NO_DAEMON: '1' };
    const p = {
      cold: [] as number[],
      coldFloor: [] as number[],
      node: [] as number[],
      hookServer: [] as number[],
      hook: [] as number[],
      hookNoCache: [] as number[],
      hookNoVerify: [] as number[],
    };
    // The first hook leaves the cache file and starts the server; the second warms the server.
    const engramHome = env.ENGRAM_HOME;
    await runProcess(process.execPath, hookArgs, { input: hookInput, env });
    await waitForHookServer(engramHome);
    await runProcess(process.execPath, hookArgs, { input: hookInput, env });
    for (let i = 0; i < runs.processes; i++) {
      p.node.push((await runProcess(process.execPath, ['-e', ''], { env })).ms);
      p.hookServer.push(
        (await runProcess(process.execPath, hookArgs, { input: hookInput, env })).ms,
      );
      p.hook.push(
        (await runProcess(process.execPath, hookArgs, { input: hookInput, env: inProcessEnv })).ms,
      );
      p.hookNoVerify.push(
        (
          await runProcess(process.execPath, [...hookArgs, '--no-verify'], {
            input: hookInput,
            env: inProcessEnv,
          })
        ).ms,
      );
      dropCache();
      p.hookNoCache.push(
        (await runProcess(process.execPath, hookArgs, { input: hookInput, env: inProcessEnv })).ms,
      );
      dropCache();
      const probe = await runProcess(
        process.execPath,
        [PROBE, 'cold', memoryDir, QUERY, String(nowMs)],
        { env },
      );
      p.cold.push((JSON.parse(probe.stdout) as { ms: number }).ms);
      const floorProbe = await runProcess(process.execPath, [PROBE, 'floor', memoryDir], { env });
      p.coldFloor.push((JSON.parse(floorProbe.stdout) as { ms: number }).ms);
    }

    // MCP: engram's server and server-memory, calls interleaved, then their memory.
    // Its own folder as the project: the claim verifier has nothing of ours to look through.
    const engram = await startMcpProcess(
      process.execPath,
      [CLI, 'mcp', '--dir', memoryDir, '--no-model'],
      env,
      home,
    );
    const peer = await startMcpMemoryBaseline(graphPath);
    const m = { engram: [] as number[], peer: [] as number[], first: 0, entities: 0 };
    try {
      m.first = (await engram.call('memory_recall', { query: QUERY })).ms;
      await peer.search(MCP_QUERY);
      for (let i = 0; i < runs.inProcess; i++) {
        m.engram.push((await engram.call('memory_recall', { query: QUERY })).ms);
        const r = await peer.search(MCP_QUERY);
        m.peer.push(r.ms);
        m.entities = r.entities;
      }
    } catch (error) {
      await Promise.allSettled([engram.close(), peer.close()]);
      throw error;
    }
    const engramMemory = engram.memory();
    const peerMemory = peer.memory();
    await Promise.all([engram.close(), peer.close()]);

    // A host's event loop while it prefetches: first turn with no cache, then warm turns.
    dropCache();
    const loopProbe = await runProcess(
      process.execPath,
      [PROBE, 'loop', memoryDir, QUERY, String(nowMs), '6'],
      { env },
    );
    const loop = JSON.parse(loopProbe.stdout) as Record<
      | 'firstMaxDelayMs'
      | 'warmMaxDelayMs'
      | 'idleMaxDelayMs'
      | 'firstMaxCpuStallMs'
      | 'warmMaxCpuStallMs',
      number
    >;

    const floorMs = median(t.floor);
    const nodeMs = median(p.node);
    const peerSearchMs = median(m.peer);
    const row = {
      floorMs,
      statFloorMs: median(t.stat),
      warmRecallMs: median(t.warm),
      warmScanRankMs: median(t.scanRank),
      coldRecallMs: median(p.cold),
      coldFloorMs: median(p.coldFloor),
      nodeMs,
      hookServerMs: median(p.hookServer),
      hookMs: median(p.hook),
      hookNoCacheMs: median(p.hookNoCache),
      hookNoVerifyMs: median(p.hookNoVerify),
      mcpRecallMs: median(m.engram),
      mcpFirstRecallMs: m.first,
      peerSearchMs,
      mcpRssMiB: engramMemory.rssMiB,
      mcpPeakRssMiB: engramMemory.peakRssMiB,
      peerRssMiB: peerMemory.rssMiB,
      loopDelayFirstTurnMs: loop.firstMaxDelayMs,
      loopDelayLaterTurnsMs: loop.warmMaxDelayMs,
      loopDelayIdleMs: loop.idleMaxDelayMs,
      cpuStallFirstTurnMs: loop.firstMaxCpuStallMs,
      cpuStallLaterTurnsMs: loop.warmMaxCpuStallMs,
    };
    return {
      memories: size,
      runs,
      ...row,
      selected,
      peerEntities: m.entities,
      ratios: {
        statFloor: round(row.statFloorMs / floorMs),
        warmRecall: round(row.warmRecallMs / floorMs),
        warmScanRank: round(row.warmScanRankMs / floorMs),
        coldRecall: round(row.coldRecallMs / floorMs),
        coldRecallToColdFloor: round(row.coldRecallMs / row.coldFloorMs),
        coldFloor: round(row.coldFloorMs / floorMs),
        hookServer: round(row.hookServerMs / nodeMs),
        hook: round(row.hookMs / nodeMs),
        hookNoCache: round(row.hookNoCacheMs / nodeMs),
        verification: round(row.hookMs / row.hookNoVerifyMs),
        mcpRecall: round(row.mcpRecallMs / peerSearchMs),
        mcpRss: round(row.mcpRssMiB / row.peerRssMiB),
      },
    };
  } finally {
    await stopHookServers(join(root, 'home', '.engram'));
    await rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseBenchArgs>;
  try {
    args = parseBenchArgs(process.argv.slice(2), DEFAULT_SIZES);
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${BENCH_USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    process.stdout.write(BENCH_USAGE);
    return;
  }
  const rows: BenchRow[] = [];
  const started = Date.now();
  for (const size of args.sizes) {
    process.stderr.write(`bench: ${size} memories…\n`);
    rows.push(await benchSize(size, runsFor(size, args.runs)));
  }
  const meta = {
    node: process.version,
    query: QUERY,
    peerQuery: MCP_QUERY,
    seconds: round((Date.now() - started) / 1000, 1),
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ ...meta, rows }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${formatTables(rows, meta)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
