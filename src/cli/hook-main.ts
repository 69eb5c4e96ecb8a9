/**
 * The lean hook entry, `dist/cli/hook.cjs` (what the plugin's hooks.json runs): one CommonJS file
 * holding only the hook client (hook-launch.ts), so a prompt's hook process costs little more than
 * Node's own start-up when the warm hook server answers (an ES module entry alone costs Node a
 * third more). Without a server it runs the hook in-process from the runner bundle, as `main.js`
 * does. Anything but `hook <event> …` (or `hook-server <home>`) is handed to the full CLI.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseLeanHookArgv } from './hook-argv.js';
import { type HookEntry, type HookRunner, launchHook, serveFromEntry } from './hook-launch.js';

/** This file (CommonJS `__filename`; the ES module tsc also emits is never run). */
const SELF = typeof __filename === 'string' ? __filename : (process.argv[1] ?? '');
const DIR = dirname(SELF);
const MAIN = join(DIR, 'main.js');
const BUNDLE = join(DIR, 'bundle', 'hook.cjs');

async function hookRunner(home: string): Promise<HookRunner> {
  const { loadCachedBundle } = await import('./code-cache.js');
  const loaded = loadCachedBundle<Omit<HookRunner, 'saveCache'>>(BUNDLE, join(home, 'cache'));
  return { ...loaded.exports, saveCache: loaded.saveCache };
}

const ENTRY: HookEntry = {
  selfPath: SELF,
  mainPath: MAIN,
  bundlePath: BUNDLE,
  loadRunner: hookRunner,
};

/** The full CLI, which reads process.argv itself. */
async function runMain(): Promise<undefined> {
  const { pathToFileURL } = await import('node:url');
  await import(pathToFileURL(MAIN).href);
  return undefined;
}

async function main(argv: string[]): Promise<number | undefined> {
  if (!existsSync(BUNDLE)) return runMain();
  if (argv[0] === 'hook-server' && argv.length === 2) {
    process.exit(await serveFromEntry(argv[1]!, ENTRY));
  }
  const hook = parseLeanHookArgv(argv);
  if (!hook) return runMain();
  const code = await launchHook(hook, argv, ENTRY);
  setTimeout(() => process.exit(code), 200).unref();
  return code;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`engram: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
