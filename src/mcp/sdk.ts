/**
 * The MCP SDK, loaded through one door: it is an optional peer dependency, so a project that
 * imports `engram/mcp` (or runs `engram mcp`) without it gets an error naming the package and
 * the command that installs it, instead of Node's bare "Cannot find package". The rest of
 * src/mcp imports the SDK's values from here; its types may be imported directly (erased).
 */
import type * as McpModule from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/server/stdio.js';
import { importOptional } from '../util/optional-import.js';

const PACKAGE = '@modelcontextprotocol/sdk';
const FEATURE = "engram's MCP server (engram mcp, engram/mcp)";

const mcp: typeof McpModule = await importOptional(
  PACKAGE,
  FEATURE,
  () => import('@modelcontextprotocol/sdk/server/mcp.js'),
);
const stdio: typeof StdioModule = await importOptional(
  PACKAGE,
  FEATURE,
  () => import('@modelcontextprotocol/sdk/server/stdio.js'),
);

export const { McpServer, ResourceTemplate } = mcp;
export type McpServer = McpModule.McpServer;
export const { StdioServerTransport } = stdio;
