import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface McpMemoryBaseline {
  /** One `search_nodes` call, timed from the client: JSON-RPC over stdio, graph load, filter. */
  search(query: string): Promise<{ ms: number; entities: number }>;
  close(): Promise<void>;
}

/**
 * `@modelcontextprotocol/server-memory`, driven the way an MCP client drives it: its own bin as a
 * child process, the official SDK client over stdio. Its module starts a stdio server on import,
 * so there is no in-process factory to call.
 */
export async function startMcpMemoryBaseline(graphPath: string): Promise<McpMemoryBaseline> {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@modelcontextprotocol/server-memory/package.json');
  const bin = pkg.replace(/package\.json$/, 'dist/index.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin],
    env: { MEMORY_FILE_PATH: graphPath, PATH: process.env.PATH ?? '' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'engram-bench', version: '0.1.0' });
  await client.connect(transport);
  return {
    async search(query) {
      const started = performance.now();
      const result = await client.callTool({ name: 'search_nodes', arguments: { query } });
      const ms = performance.now() - started;
      const structured = result.structuredContent as { entities?: unknown[] } | undefined;
      return { ms, entities: structured?.entities?.length ?? 0 };
    },
    close: () => client.close(),
  };
}
