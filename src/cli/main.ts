#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLeanHookArgv } from './hook-argv.js';
import { type HookEntry, type HookRunner, launchHook, serveFromEntry } from './hook-launch.js';
import { processIo } from './io.js';
import { parseLeanMcpArgv } from './mcp-argv.js';

const MAIN = fileURLToPath(import.meta.url);
const BUNDLE = fileURLToPath(new URL('./bundle/hook.cjs', import.meta.url));

/**
 * The hook runner from its own bundle (`bundle/hook.cjs`, built by scripts/bundle-cli.mjs), with
 * V8's code cache in `$ENGRAM_HOME/cache` (see code-cache.ts); from the modules beside this file
 * when there is no such bundle (tsc's output alone).
 */
async function hookRunner(home: string): Promise<HookRunner> {
  if (!existsSync(BUNDLE)) {
    const [{ runHookCommand }, { serveHooks }, { markOneShotProcess }] = await Promise.all([
      import('./hook-run.js'),
      import('./hook-server.js'),
      import('../util/process-kind.js'),
    ]);
    return { runHookCommand, serveHooks, markOneShotProcess, saveCache: () => undefined };
  }
  const { loadCachedBundle } = await import('./code-cache.js');
  const loaded = loadCachedBundle<Omit<HookRunner, 'saveCache'>>(BUNDLE, join(home, 'cache'));
  return { ...loaded.exports, saveCache: loaded.saveCache };
}

const ENTRY: HookEntry = {
  selfPath: MAIN,
  mainPath: MAIN,
  bundlePath: BUNDLE,
  loadRunner: hookRunner,
};

/**
 * Claude Code starts one `engram hook <event>` process per prompt, so a hook call goes straight to
 * the hook runner (through the warm hook server when one is up, see hook-launch.ts), and `engram
 * mcp` straight to the server; `hook-server <home>` is the warm hook server, started by a hook;
 * everything else loads the full CLI (commander and every command).
 */
async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'hook-server' && argv.length === 2) {
    process.exit(await serveFromEntry(argv[1]!, ENTRY));
  }
  const hook = parseLeanHookArgv(argv);
  if (hook) {
    const code = await launchHook(hook, argv, ENTRY);
    // A hook has answered: work still pending past its deadline (a stuck read, a slow model call)
    // must not keep the process, and Claude Code, waiting.
    setTimeout(() => process.exit(code), 200).unref();
    return code;
  }
  // `engram list | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const io = { ...processIo(), cliEntry: MAIN };
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
  // Every other command answers once and exits (those that serve, `engram ui`, `team serve` and
  // `team watch`, say so themselves): their file calls skip the thread pool (util/process-kind.ts).
  const [{ runCli }, { markOneShotProcess }] = await Promise.all([
    import('./program.js'),
    import('../util/process-kind.js'),
  ]);
  markOneShotProcess();
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
