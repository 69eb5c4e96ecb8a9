import type { Command } from 'commander';
import { withCommonOptions } from '../common.js';
import type { CliIo } from '../io.js';
import { type McpCommandOptions, runMcpCommand } from '../mcp-run.js';

export function registerMcpCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('mcp'))
    .description(
      'serve the memory directory to MCP clients over stdio (tools: memory_recall, memory_save, memory_list, memory_read, memory_revoke, memory_audit)',
    )
    .option('--no-model', 'recall with the offline ranker even when a model is configured')
    .action((opts: McpCommandOptions) => runMcpCommand(io, opts));
}
