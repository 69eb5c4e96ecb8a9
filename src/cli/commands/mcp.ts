import type { Command } from 'commander';
import { importOptional } from '../../util/optional-import.js';
import {
  type CommonOptions,
  configuredModel,
  environmentFor,
  memoryDirFor,
  withCommonOptions,
} from '../common.js';
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
      const { path } = memoryDirFor(io, opts);
      const resolved = opts.model === false ? undefined : configuredModel(io, opts);
      // stdout is the protocol channel: everything for people goes to stderr.
      io.stderr(
        `engram mcp: serving ${path} (recall: ${resolved?.ok ? resolved.description : 'offline ranker'})\n`,
      );
      // Loaded here, not at start-up: every other command (hooks run per prompt) skips the MCP SDK.
      const { serveMcpStdio } = await importOptional(
        '@modelcontextprotocol/sdk',
        'engram mcp',
        () => import('../../mcp/index.js'),
      );
      await serveMcpStdio({
        memoryDir: path,
        projectDir: environmentFor(io, opts).cwd,
        ...(resolved?.ok ? { model: resolved.model } : {}),
      });
    });
}
