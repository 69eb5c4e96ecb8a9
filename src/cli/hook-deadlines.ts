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
