import type { HookCommandName } from '../hooks/input.js';
import type { HookOptions } from './hook-run.js';

/**
 * How long each hook may run before it stops with a message: under Claude Code's own timeout for
 * the installed hook (`HOOK_TIMEOUTS`), so engram says why instead of being killed silently. The
 * detached stop child (`stop --wait`) gets longer: it runs model calls, but never forever.
 * `ENGRAM_HOOK_DEADLINE_MS` overrides them all.
 */
export const HOOK_DEADLINES_MS: Record<HookCommandName | 'stop-wait', number> = {
  'session-start': 8_000,
  'user-prompt-submit': 12_000,
  stop: 8_000,
  'stop-wait': 300_000,
  'pre-compact': 110_000,
};

export function hookDeadlineMs(
  name: HookCommandName,
  opts: HookOptions,
  env: Record<string, string | undefined>,
): number {
  const override = Number(env.ENGRAM_HOOK_DEADLINE_MS);
  if (Number.isInteger(override) && override > 0) return override;
  return HOOK_DEADLINES_MS[name === 'stop' && opts.wait ? 'stop-wait' : name];
}

/** The message a hook that ran out of its deadline leaves on stderr (in-process and served). */
export function hookDeadlineText(name: string, deadlineMs: number): string {
  return `engram: the ${name} hook stopped at its ${deadlineMs} ms deadline without finishing; nothing more was done this time.\n`;
}

/** The default `--budget-ms` of the prompt hook (DEFAULT_RECALL_BUDGET_MS; kept equal by a test). */
export const PROMPT_BUDGET_MS = 5_000;

/** The prompt hook's `--budget-ms` as a number, or undefined when it is not a positive integer. Pure. */
export function promptBudgetMs(options: HookOptions): number | undefined {
  const budget = options.budgetMs === undefined ? PROMPT_BUDGET_MS : Number(options.budgetMs);
  return Number.isInteger(budget) && budget > 0 ? budget : undefined;
}

/**
 * `options` with the time already spent waiting (for a server, or for its turn in one) taken off
 * the prompt hook's budget: `--budget-ms` bounds the hook as a whole, whichever way it ran. Pure.
 */
export function budgetAfterWait(
  event: HookCommandName,
  options: HookOptions,
  waitedMs: number,
): HookOptions {
  const budget =
    event === 'user-prompt-submit' && waitedMs >= 1 ? promptBudgetMs(options) : undefined;
  return budget === undefined
    ? options
    : { ...options, budgetMs: String(Math.max(1, budget - waitedMs)) };
}
