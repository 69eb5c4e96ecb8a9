/**
 * The lean hook entry's argument reader: `hook <event> [options]` with the options `engram hook
 * <event>` declares, and nothing else. Anything it does not recognise (help, an unknown option, an
 * option before `hook`) returns undefined and the full CLI handles it, so behaviour never differs;
 * this only spares each prompt's hook process from loading commander and every other command.
 */
import type { HookCommandName } from '../hooks/input.js';
import type { HookOptions } from './hook-run.js';
import { readLeanOptions } from './lean-argv.js';

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

const SWITCHES = {
  '--json': ['json', true],
  '--no-model': ['model', false],
  '--wait': ['wait', true],
  '--no-verify': ['verify', false],
} as const;

export interface LeanHookCall {
  event: HookCommandName;
  options: HookOptions;
}

/** The hook call `argv` asks for, or undefined when the full CLI must parse it. Pure. */
export function parseLeanHookArgv(argv: readonly string[]): LeanHookCall | undefined {
  if (argv[0] !== 'hook') return undefined;
  const event = LEAN_HOOK_EVENTS.find((e) => e === argv[1]);
  if (event === undefined) return undefined;
  const options = readLeanOptions(argv, 2, SWITCHES, VALUE_OPTIONS) as HookOptions | undefined;
  if (options === undefined) return undefined;
  return { event, options };
}
