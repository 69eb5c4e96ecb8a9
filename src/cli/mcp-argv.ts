/**
 * The lean MCP entry's argument reader: `mcp [--dir|--memory-dir|--cwd <v>] [--no-model] [--json]`,
 * the options `engram mcp` declares, and nothing else. Anything it does not recognise (help, an
 * unknown option, an option before `mcp`) returns undefined and the full CLI handles it, so
 * behaviour never differs; this only spares a long-running server the memory and start-up of
 * commander and every other command (the web inspector's server, markdown rendering, ...).
 */
import type { McpCommandOptions } from './mcp-run.js';

const VALUE_OPTIONS: Record<string, 'dir' | 'memoryDir' | 'cwd'> = {
  '--dir': 'dir',
  '--memory-dir': 'memoryDir',
  '--cwd': 'cwd',
};

/** The `engram mcp` call `argv` asks for, or undefined when the full CLI must parse it. Pure. */
export function parseLeanMcpArgv(argv: readonly string[]): McpCommandOptions | undefined {
  if (argv[0] !== 'mcp') return undefined;
  const options: McpCommandOptions = {};
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') options.json = true;
    else if (arg === '--no-model') options.model = false;
    else {
      const eq = arg.indexOf('=');
      const flag = eq > 0 ? arg.slice(0, eq) : arg;
      const key = VALUE_OPTIONS[flag];
      if (key === undefined) return undefined;
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      // A missing value or one that looks like an option: let commander decide and explain.
      if (value === undefined || (eq < 0 && value.startsWith('-'))) return undefined;
      options[key] = value;
    }
  }
  return options;
}
