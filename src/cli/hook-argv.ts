/**
 * The lean hook entry's argument reader: `hook <event> [options]` with the options `engram hook
 * <event>` declares, and nothing else. Anything it does not recognise (help, an unknown option, an
 * option before `hook`) returns undefined and the full CLI handles it, so behaviour never differs;
 * this only spares each prompt's hook process from loading commander and every other command.
 */
import type { HookCommandName } from '../hooks/input.js';
import type { HookOptions } from './hook-run.js';

/** Kept equal to Object.keys(HOOK_EVENTS) by a test; listed here so this file imports nothing. */
export const LEAN_HOOK_EVENTS: readonly HookCommandName[] = [
  'session-start',
  'user-prompt-submit',
  'stop',
  'pre-compact',
];

const VALUE_OPTIONS: Record<string, keyof HookOptions> = {
  '--dir': 'dir',
  '--memory-dir': 'memoryDir',
  '--cwd': 'cwd',
  '--input': 'input',
  '--budget-ms': 'budgetMs',
};

export interface LeanHookCall {
  event: HookCommandName;
  options: HookOptions;
}

/** The hook call `argv` asks for, or undefined when the full CLI must parse it. Pure. */
export function parseLeanHookArgv(argv: readonly string[]): LeanHookCall | undefined {
  if (argv[0] !== 'hook') return undefined;
  const event = LEAN_HOOK_EVENTS.find((e) => e === argv[1]);
  if (event === undefined) return undefined;
  const options: HookOptions = {};
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') options.json = true;
    else if (arg === '--no-model') options.model = false;
    else if (arg === '--wait') options.wait = true;
    else if (arg === '--no-verify') options.verify = false;
    else {
      const eq = arg.indexOf('=');
      const flag = eq > 0 ? arg.slice(0, eq) : arg;
      const key = VALUE_OPTIONS[flag];
      if (key === undefined) return undefined;
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      // A missing value or one that looks like an option: let commander decide and explain.
      if (value === undefined || (eq < 0 && value.startsWith('-'))) return undefined;
      (options as Record<string, unknown>)[key] = value;
    }
  }
  return { event, options };
}
