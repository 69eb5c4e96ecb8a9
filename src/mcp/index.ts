export {
  MCP_SERVER_INSTRUCTIONS,
  MISSING_INPUT,
  NOTHING_RECALLED,
  TOOL_DESCRIPTIONS,
} from './prompts.js';

export {
  createEngramMcpServer,
  type EngramMcpServerOptions,
  INDEX_RESOURCE_URI,
  MCP_CALL_DEADLINE_MS,
  MEMORY_RESOURCE_TEMPLATE,
  memoryResourceUri,
} from './server.js';

export { serveMcpStdio } from './stdio.js';

export {
  auditTool,
  listTool,
  type MemoryToolsContext,
  readTool,
  recallTool,
  revokeTool,
  type SaveArgs,
  saveTool,
  type ToolText,
} from './tools.js';
