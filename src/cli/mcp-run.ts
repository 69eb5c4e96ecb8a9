/**
 * Serving MCP over stdio, without commander: the CLI's `engram mcp` command and the lean MCP entry
 * (`main.ts` → `mcp-argv.ts`) both end here, so the two behave the same.
 */

import { markHostProcess } from '../util/process-kind.js';
import { type CommonOptions, runtimeFor } from './common.js';
import type { CliIo } from './io.js';

export interface McpCommandOptions extends CommonOptions {
  /** False: recall with the offline ranker even when a model is configured. */
  model?: boolean;
}

/** Serve the memory directory until the client closes stdin. */
export async function runMcpCommand(io: CliIo, opts: McpCommandOptions): Promise<void> {
  markHostProcess(); // a server: its loop keeps turning while files are read
  const engram = runtimeFor(io, opts, { model: opts.model !== false });
  // stdout is the protocol channel: everything for people goes to stderr.
  io.stderr(
    `engram mcp: serving ${engram.memoryDir} (recall: ${engram.modelDescription ?? 'offline ranker'})\n`,
  );
  // Loaded here, not at start-up: every other command (hooks run per prompt) skips the MCP SDK.
  // Without the SDK installed, src/mcp/sdk.ts throws the error that says what to install.
  const { serveMcpStdio } = await import('../mcp/index.js');
  await serveMcpStdio({
    engram,
    memoryDir: engram.memoryDir,
    projectDir: engram.environment.cwd,
  });
}
