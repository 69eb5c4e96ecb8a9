import { homedir } from 'node:os';
import type { EngramEnvironment } from '../config/index.js';

/** Everything a command touches outside the library, passed in so commands run in-process in tests. */
export interface CliIo extends EngramEnvironment {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves to '' when stdin is a terminal or empty. */
  readStdin: () => Promise<string>;
  stdinIsTty: boolean;
  /** The running CLI's entry file, for starting engram again in a detached process. */
  cliEntry?: string;
}

export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    homedir: homedir(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdinIsTty: Boolean(process.stdin.isTTY),
    readStdin: async () => {
      if (process.stdin.isTTY) return '';
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
