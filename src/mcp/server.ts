import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { LanguageModel } from '../llm/types.js';
import { INDEX_FILE, loadIndex, MEMORY_TYPES, readMemory, scanMemories } from '../memdir/index.js';
import { createEngram } from '../runtime/create-engram.js';
import type { Engram } from '../runtime/types.js';
import { type Clock, type LegacyNow, resolveClock } from '../util/clock.js';
import { ENGRAM_VERSION } from '../util/version.js';
import { MCP_SERVER_INSTRUCTIONS, MISSING_INPUT, TOOL_DESCRIPTIONS } from './prompts.js';
import { McpServer, ResourceTemplate } from './sdk.js';
import {
  auditTool,
  listTool,
  type MemoryToolsContext,
  mcpClaimVerifier,
  readTool,
  recallTool,
  revokeTool,
  saveTool,
  type ToolText,
} from './tools.js';

export interface EngramMcpServerOptions {
  /**
   * The runtime to serve (its recall log, clock and model). Without one, a runtime is built over
   * `memoryDir` with `model` and `clock`.
   */
  engram?: Engram;
  /** The memory directory the server serves. */
  memoryDir: string;
  /** The recall selector; without one the offline ranker decides. */
  model?: LanguageModel;
  clock?: Clock;
  /** @deprecated pass `clock`. */
  now?: LegacyNow;
  /** The project the agent works in: recall checks memories' claims against it when given. */
  projectDir?: string;
  /** Reported to clients. */
  version?: string;
  /** Each tool call answers within this many ms (default `MCP_CALL_DEADLINE_MS`). */
  callDeadlineMs?: number;
}

export const INDEX_RESOURCE_URI = 'engram://index';
export const MEMORY_RESOURCE_TEMPLATE = 'engram://memory/{+file}';

/** A memory's resource URI: each path segment percent-encoded, so `100%.md` or spaces survive. */
export function memoryResourceUri(file: string): string {
  return `engram://memory/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/** The file a resource URI names; a client that sent the name unencoded is understood too. */
function fileOfResource(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/**
 * A required string whose absence or wrong kind is reported in words the model can act on; the
 * SDK validates the input before the tool runs and would otherwise say only "expected string".
 */
const required = (field: keyof typeof MISSING_INPUT) =>
  z.string({ error: () => MISSING_INPUT[field] });

/**
 * Every tool call answers within this (default 30 s), as an error result if it must: one stuck
 * call must not leave the client waiting, and the server keeps answering the calls after it.
 */
export const MCP_CALL_DEADLINE_MS = 30_000;

/** Tool failures are results the model reads (`isError`), never protocol errors. */
async function asResult(
  run: () => Promise<ToolText>,
  deadlineMs: number = MCP_CALL_DEADLINE_MS,
): Promise<CallToolResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const out = await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `The call did not finish within its ${deadlineMs} ms deadline; nothing more is done for it. Try again, or run \`engram audit\`.`,
              ),
            ),
          deadlineMs,
        );
        timer.unref();
      }),
    ]);
    return {
      content: [out.text, ...(out.extra ?? [])].map((text) => ({ type: 'text' as const, text })),
      // Every structured result carries the text the model needs: Claude Code passes only this.
      ...(out.structured ? { structuredContent: { text: out.text, ...out.structured } } : {}),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { content: [{ type: 'text', text: message }], isError: true };
  } finally {
    clearTimeout(timer);
  }
}

/** An agent name: one path segment, checked again where it becomes a folder. */
const AGENT_ARG = z.string().min(1).optional();

/**
 * An MCP server over one memory directory: six tools (recall, save, list, read, revoke, audit)
 * and resources for the index and each memory file. Connect it to any transport.
 */
export function createEngramMcpServer(options: EngramMcpServerOptions): McpServer {
  const clock = options.clock || options.now ? resolveClock(options) : undefined;
  const engram =
    options.engram ??
    createEngram({
      ...(options.projectDir ? { cwd: options.projectDir } : {}),
      memoryDir: options.memoryDir,
      ...(options.model ? { model: options.model } : {}),
      ...(clock ? { clock } : {}),
    });
  const ctx: MemoryToolsContext = {
    dir: options.memoryDir,
    engram,
    ...(options.model ? { model: options.model } : {}),
    ...(clock ? { clock } : {}),
    ...(options.projectDir
      ? {
          projectDir: options.projectDir,
          verifier: mcpClaimVerifier(options.projectDir, options.memoryDir),
        }
      : {}),
  };
  const deadlineMs = options.callDeadlineMs ?? MCP_CALL_DEADLINE_MS;
  const server = new McpServer(
    { name: 'engram', version: options.version ?? ENGRAM_VERSION },
    { instructions: MCP_SERVER_INSTRUCTIONS },
  );

  server.registerTool(
    'memory_recall',
    {
      description: TOOL_DESCRIPTIONS.memory_recall,
      inputSchema: {
        query: required('query')
          .min(1, MISSING_INPUT.query)
          .describe("The user's request, in their words"),
        already_surfaced: z
          .array(z.string())
          .optional()
          .describe('Memory files already shown in this conversation; they are not returned again'),
        agent: AGENT_ARG.describe(
          "Recall from this agent's own memory only (a sub-agent's); omit for the main memory",
        ),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => asResult(() => recallTool(ctx, args), deadlineMs),
  );
  server.registerTool(
    'memory_save',
    {
      description: TOOL_DESCRIPTIONS.memory_save,
      inputSchema: {
        type: z.enum(MEMORY_TYPES, { error: () => MISSING_INPUT.type }),
        name: required('name').describe('Short, specific title'),
        description: required('description').describe(
          'One specific line; recall decides from it alone',
        ),
        body: required('body').describe(
          'The fact or rule first, then **Why:** and **How to apply:**',
        ),
        file: z
          .string()
          .optional()
          .describe('File name ending in .md; derived from the name when omitted'),
        scope: z
          .enum(['project', 'user', 'local'])
          .optional()
          .describe(
            'project (default): this repository; user: a fact about the person that holds in every project; with agent: local (default), project or user',
          ),
        agent: AGENT_ARG.describe("Save into this agent's own memory instead of the main memory"),
      },
    },
    (args) => asResult(() => saveTool(ctx, args), deadlineMs),
  );
  server.registerTool(
    'memory_list',
    {
      description: TOOL_DESCRIPTIONS.memory_list,
      inputSchema: {
        include_revoked: z.boolean().optional(),
        agent: AGENT_ARG.describe("List this agent's own memories instead of the main memory"),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => asResult(() => listTool(ctx, args), deadlineMs),
  );
  server.registerTool(
    'memory_read',
    {
      description: TOOL_DESCRIPTIONS.memory_read,
      inputSchema: {
        file: required('file')
          .min(1, MISSING_INPUT.file)
          .describe('The memory file, relative to the memory directory'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => asResult(() => readTool(ctx, args), deadlineMs),
  );
  server.registerTool(
    'memory_revoke',
    {
      description: TOOL_DESCRIPTIONS.memory_revoke,
      inputSchema: {
        file: required('file').min(1, MISSING_INPUT.file).describe('The memory file or its name'),
        reason: required('reason')
          .min(1, MISSING_INPUT.reason)
          .describe('One line: why the memory is wrong'),
        superseded_by: z.string().optional().describe('The memory file that replaces it, if any'),
      },
      annotations: { destructiveHint: true },
    },
    (args) => asResult(() => revokeTool(ctx, args), deadlineMs),
  );
  server.registerTool(
    'memory_audit',
    { description: TOOL_DESCRIPTIONS.memory_audit, annotations: { readOnlyHint: true } },
    () => asResult(() => auditTool(ctx), deadlineMs),
  );

  server.registerResource(
    'index',
    INDEX_RESOURCE_URI,
    {
      title: INDEX_FILE,
      description: 'The memory index, as an agent receives it (capped)',
      mimeType: 'text/markdown',
    },
    async (uri) => {
      const index = await loadIndex(options.memoryDir);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: index.content }] };
    },
  );
  server.registerResource(
    'memory',
    new ResourceTemplate(MEMORY_RESOURCE_TEMPLATE, {
      list: async () => {
        const scan = await scanMemories(options.memoryDir, { cap: Number.POSITIVE_INFINITY });
        return {
          resources: scan.memories
            .filter((m) => m.status === 'active')
            .map((m) => ({
              uri: memoryResourceUri(m.file),
              name: m.name ?? m.file,
              mimeType: 'text/markdown',
              ...(m.description ? { description: m.description } : {}),
            })),
        };
      },
    }),
    { description: 'One memory file', mimeType: 'text/markdown' },
    async (uri, variables) => {
      const file = fileOfResource(String(variables.file));
      const doc = await readMemory(options.memoryDir, file);
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: doc.content }] };
    },
  );
  return server;
}
