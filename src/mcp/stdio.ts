import { warmCandidates } from '../recall/candidates.js';
import { StdioServerTransport } from './sdk.js';
import { createEngramMcpServer, type EngramMcpServerOptions } from './server.js';

/**
 * Serve over stdin/stdout until the client closes stdin. stdout carries only protocol frames:
 * nothing in this layer may print to it (Biome's noConsole guards src/mcp).
 */
export async function serveMcpStdio(options: EngramMcpServerOptions): Promise<void> {
  const server = createEngramMcpServer(options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  // The index stays warm between calls (revalidated by stat); build it now, in slices that let
  // requests through, so the first memory_recall does not pay for it.
  void warmCandidates(options.memoryDir);
  await closed;
  await server.close();
}
