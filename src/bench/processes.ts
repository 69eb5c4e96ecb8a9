import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface ProcessRun {
  ms: number;
  stdout: string;
}

/** Start a process, feed it `input`, wait for it to exit: wall time as a caller (Claude Code) sees it. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) {
        reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${Buffer.concat(err)}`));
        return;
      }
      resolve({ ms, stdout: Buffer.concat(out).toString('utf8') });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface McpProcess {
  /** One tool call, timed from the client (JSON-RPC over stdio included). */
  call(name: string, args: Record<string, unknown>): Promise<{ ms: number; result: unknown }>;
  /** Resident and peak resident memory of the server process, MiB (Linux /proc). */
  memory(): { rssMiB: number; peakRssMiB: number };
  close(): Promise<void>;
}

function procStatusMiB(pid: number | null, field: 'VmRSS' | 'VmHWM'): number {
  if (pid === null) return Number.NaN;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** An MCP server as a client drives it: its own process, the official SDK client over stdio. */
export async function startMcpProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<McpProcess> {
  const transport = new StdioClientTransport({
    command,
    args,
    env,
    stderr: 'ignore',
    ...(cwd ? { cwd } : {}),
  });
  const client = new Client({ name: 'engram-bench', version: '0.1.0' });
  await client.connect(transport);
  return {
    async call(name, args) {
      const started = performance.now();
      const result = await client.callTool({ name, arguments: args });
      return { ms: performance.now() - started, result };
    },
    memory: () => ({
      rssMiB: procStatusMiB(transport.pid, 'VmRSS'),
      peakRssMiB: procStatusMiB(transport.pid, 'VmHWM'),
    }),
    close: () => client.close(),
  };
}

/** The pids of the warm hook servers of an engram home that answer their socket. */
export async function hookServerPids(engramHome: string): Promise<number[]> {
  let names: string[];
  try {
    names = readdirSync(join(engramHome, 'run')).filter((n) => n.endsWith('.sock'));
  } catch {
    return [];
  }
  const pids = await Promise.all(
    names.map(
      (name) =>
        new Promise<number | undefined>((resolve) => {
          const socket = connect(join(engramHome, 'run', name));
          let text = '';
          socket.setEncoding('utf8');
          socket.on('connect', () => socket.write('{"t":"status"}\n'));
          socket.on('data', (chunk: string) => {
            text += chunk;
          });
          socket.on('error', () => resolve(undefined));
          socket.on('close', () => {
            try {
              resolve((JSON.parse(text) as { pid: number }).pid);
            } catch {
              resolve(undefined);
            }
          });
        }),
    ),
  );
  return pids.filter((pid): pid is number => pid !== undefined);
}

/** Wait until a hook has started the home's warm hook server (at most ~30 s). */
export async function waitForHookServer(engramHome: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await hookServerPids(engramHome)).length > 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no hook server started for ${engramHome}`);
}

/** Stop the home's warm hook servers (they would also exit once the home is removed). */
export async function stopHookServers(engramHome: string): Promise<void> {
  for (const pid of await hookServerPids(engramHome)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
}
