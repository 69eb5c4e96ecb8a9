import type { Command } from 'commander';
import { importOptional } from '../../util/optional-import.js';
import { type CommonOptions, runtimeFor, withCommonOptions } from '../common.js';
import type { CliIo } from '../io.js';

interface McpOptions extends CommonOptions {
  model?: boolean;
}

export function registerMcpCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('mcp'))
    .description(
      'serve the memory directory to MCP clients over stdio (tools: memory_recall, memory_save, memory_list, memory_read, memory_revoke, memory_audit)',
    )
    .option('--no-model', 'recall with the offline ranker even when a model is configured')
    .action(async (opts: McpOptions) => {
      const engram = runtimeFor(io, opts, { model: opts.model !== false });
      // stdout is the protocol channel: everything for people goes to stderr.
      io.stderr(
        `engram mcp: serving ${engram.memoryDir} (recall: ${engram.modelDescription ?? 'offline ranker'})\n`,
      );
      // Loaded here, not at start-up: every other command (hooks run per prompt) skips the MCP SDK.
      const { serveMcpStdio } = await importOptional(
        '@modelcontextprotocol/sdk',
        'engram mcp',
        () => import('../../mcp/index.js'),
      );
      await serveMcpStdio({
        engram,
        memoryDir: engram.memoryDir,
        projectDir: engram.environment.cwd,
      });
    });
}
