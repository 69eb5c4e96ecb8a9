/**
 * The option reader both lean entries share (`engram hook <event>` and `engram mcp`): switches
 * that set a fixed value, and options that take one (`--flag v` or `--flag=v`). Anything else
 * returns undefined so the full CLI parses the call and explains; imports nothing, so the hook's
 * thin client can carry it. Pure.
 */
export function readLeanOptions(
  argv: readonly string[],
  from: number,
  switches: Readonly<Record<string, readonly [key: string, value: unknown]>>,
  values: Readonly<Record<string, string>>,
): Record<string, unknown> | undefined {
  const options: Record<string, unknown> = {};
  for (let i = from; i < argv.length; i++) {
    const arg = argv[i]!;
    const sw = Object.hasOwn(switches, arg) ? switches[arg] : undefined;
    if (sw) {
      options[sw[0]] = sw[1];
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const key = Object.hasOwn(values, flag) ? values[flag] : undefined;
    if (key === undefined) return undefined;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    // A missing value or one that looks like an option: let commander decide and explain.
    if (value === undefined || (eq < 0 && value.startsWith('-'))) return undefined;
    options[key] = value;
  }
  return options;
}
