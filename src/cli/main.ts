#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { parseLeanHookArgv } from './hook-argv.js';
import { processIo } from './io.js';

// `engram list | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

/**
 * Claude Code starts one `engram hook <event>` process per prompt, so a hook call goes straight to
 * the hook runner; everything else loads the full CLI (commander and every command).
 */
async function main(argv: string[]): Promise<number> {
  const io = { ...processIo(), cliEntry: fileURLToPath(import.meta.url) };
  const hook = parseLeanHookArgv(argv);
  if (hook) {
    const { runHookCommand } = await import('./hook-run.js');
    const code = await runHookCommand(hook.event, io, hook.options);
    // A hook has answered: work still pending past its deadline (a stuck read, a slow model call)
    // must not keep the process, and Claude Code, waiting.
    setTimeout(() => process.exit(code), 200).unref();
    return code;
  }
  const { runCli } = await import('./program.js');
  return runCli(argv, io);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`engram: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
