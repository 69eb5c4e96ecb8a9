/**
 * The lean MCP entry's argument reader: `mcp [--dir|--memory-dir|--cwd <v>] [--no-model] [--json]`,
 * the options `engram mcp` declares, and nothing else. Anything it does not recognise (help, an
 * unknown option, an option before `mcp`) returns undefined and the full CLI handles it, so
 * behaviour never differs; this only spares a long-running server the memory and start-up of
 * commander and every other command (the web inspector's server, markdown rendering, ...).
 */
import { readLeanOptions } from './lean-argv.js';
import type { McpCommandOptions } from './mcp-run.js';

const SWITCHES = { '--json': ['json', true], '--no-model': ['model', false] } as const;

const VALUE_OPTIONS: Record<string, 'dir' | 'memoryDir' | 'cwd'> = {
  '--dir': 'dir',
  '--memory-dir': 'memoryDir',
  '--cwd': 'cwd',
};

/** The `engram mcp` call `argv` asks for, or undefined when the full CLI must parse it. Pure. */
export function parseLeanMcpArgv(argv: readonly string[]): McpCommandOptions | undefined {
  if (argv[0] !== 'mcp') return undefined;
  return readLeanOptions(argv, 1, SWITCHES, VALUE_OPTIONS) as McpCommandOptions | undefined;
}
