import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from './io.js';
import { runCli } from './program.js';

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** An isolated environment for running the CLI in-process: its own HOME and ENGRAM_HOME. */
export function testIo(
  overrides: Partial<CliIo> & { stdin?: string } = {},
): CliIo & { out: string[]; err: string[] } {
  const home = overrides.homedir ?? mkdtempSync(join(tmpdir(), 'engram-home-'));
  const out: string[] = [];
  const err: string[] = [];
  const stdin = overrides.stdin;
  return {
    cwd: overrides.cwd ?? home,
    homedir: home,
    env: overrides.env ?? {
      ENGRAM_HOME: join(home, '.engram'),
      ENGRAM_MANAGED_DIR: join(home, 'managed'),
    },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stdinIsTty: stdin === undefined,
    readStdin: async () => stdin ?? '',
    out,
    err,
  };
}

/** Run `engram <argv>` in-process and capture what it printed. */
export async function runCaptured(
  argv: string[],
  io: CliIo & { out: string[]; err: string[] },
): Promise<CapturedRun> {
  io.out.length = 0;
  io.err.length = 0;
  const code = await runCli(argv, io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}
