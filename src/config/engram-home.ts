/**
 * The engram home rule alone, with nothing but node:path: the hook's thin client (which must cost
 * little more than Node's own start-up) and the runtime's `engramHome` both apply it, so a hook
 * server is always found under the very home the hook itself would use.
 */
import { join, resolve } from 'node:path';

/** `$ENGRAM_HOME` (resolved against `cwd`), default `<homedir>/.engram`. Pure. */
export function engramHomeFrom(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  homedir: string,
): string {
  const fromEnv = env.ENGRAM_HOME?.trim();
  return fromEnv ? resolve(cwd, fromEnv) : join(homedir, '.engram');
}
