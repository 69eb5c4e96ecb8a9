import { createRequire } from 'node:module';
import { type McpProcess, startMcpProcess } from './processes.js';

export interface McpMemoryBaseline {
  /** One `search_nodes` call, timed from the client: JSON-RPC over stdio, graph load, filter. */
  search(query: string): Promise<{ ms: number; entities: number }>;
  memory: McpProcess['memory'];
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
  const server = await startMcpProcess(process.execPath, [bin], {
    MEMORY_FILE_PATH: graphPath,
    PATH: process.env.PATH ?? '',
  });
  return {
    async search(query) {
      const { ms, result } = await server.call('search_nodes', { query });
      const structured = (result as { structuredContent?: { entities?: unknown[] } })
        .structuredContent;
      return { ms, entities: structured?.entities?.length ?? 0 };
    },
    memory: server.memory,
    close: server.close,
  };
}
