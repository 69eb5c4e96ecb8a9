import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
