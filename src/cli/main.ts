#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engramHome } from '../config/environment.js';
import { loadCachedBundle } from './code-cache.js';
import { parseLeanHookArgv } from './hook-argv.js';
import type { runHookCommand as RunHookCommand } from './hook-run.js';
import { type CliIo, processIo } from './io.js';
import { parseLeanMcpArgv } from './mcp-argv.js';

// `engram list | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

interface HookRunner {
  runHookCommand: typeof RunHookCommand;
  saveCache(): void;
}

/**
 * The hook runner from its own bundle (`bundle/hook.cjs`, built by scripts/bundle-cli.mjs), with
 * V8's code cache in `$ENGRAM_HOME/cache` (see code-cache.ts); from the modules beside this file
 * when there is no such bundle (tsc's output alone).
 */
async function hookRunner(io: CliIo): Promise<HookRunner> {
  const bundle = fileURLToPath(new URL('./bundle/hook.cjs', import.meta.url));
  if (!existsSync(bundle)) {
    const { runHookCommand } = await import('./hook-run.js');
    return { runHookCommand, saveCache: () => undefined };
  }
  const loaded = loadCachedBundle<{ runHookCommand: typeof RunHookCommand }>(
    bundle,
    join(engramHome(io), 'cache'),
  );
  return { runHookCommand: loaded.exports.runHookCommand, saveCache: loaded.saveCache };
}

/**
 * Claude Code starts one `engram hook <event>` process per prompt, so a hook call goes straight to
 * the hook runner, and `engram mcp` straight to the server; everything else loads the full CLI
 * (commander and every command).
 */
async function main(argv: string[]): Promise<number> {
  const io = { ...processIo(), cliEntry: fileURLToPath(import.meta.url) };
  const hook = parseLeanHookArgv(argv);
  if (hook) {
    const { runHookCommand, saveCache } = await hookRunner(io);
    const code = await runHookCommand(hook.event, io, hook.options);
    // After the answer is out: the bytecode now holds every function this hook ran.
    saveCache();
    // A hook has answered: work still pending past its deadline (a stuck read, a slow model call)
    // must not keep the process, and Claude Code, waiting.
    setTimeout(() => process.exit(code), 200).unref();
    return code;
  }
  // A long-running MCP server loads only the server and what it needs: its memory is its host's.
  const mcp = parseLeanMcpArgv(argv);
  if (mcp) {
    const [{ runMcpCommand }, { exitCodeFor }] = await Promise.all([
      import('./mcp-run.js'),
      import('./exit-code.js'),
    ]);
    try {
      await runMcpCommand(io, mcp);
      return 0;
    } catch (error) {
      io.stderr(`engram: ${error instanceof Error ? error.message : String(error)}\n`);
      return exitCodeFor(error);
    }
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
