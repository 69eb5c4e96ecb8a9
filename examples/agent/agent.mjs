#!/usr/bin/env node
/**
 * A complete agent on the Anthropic SDK with engram memory.
 *
 *   npm run build
 *   ANTHROPIC_API_KEY=... node examples/agent/agent.mjs --cwd ~/my-project "first message" "second message"
 *   ANTHROPIC_API_KEY=... node examples/agent/agent.mjs --cwd ~/my-project          # interactive
 *
 * What engram does here:
 * - the system prompt carries the instruction files, the memory guidance and the index (same bytes
 *   all session, so the provider's prompt cache keeps working);
 * - before each user message, recall picks the memories that matter (maybe none) and their text is
 *   appended to that message; the bytes are stored with the conversation and resent unchanged;
 * - the model can save, fix and delete memories itself with Anthropic's memory tool
 *   (`memory_20250818`), served by engram's handler over the same memory directory;
 * - after each turn, extraction (a safety net for memories the model forgot), session notes and
 *   consolidation run in the background when ENGRAM_MODEL / an API key configures a model for them.
 *
 * Options: --cwd DIR (project), --session FILE (resume from and save the conversation),
 * --model ID (main model, default $EXAMPLE_MODEL or claude-sonnet-5), --offline-recall.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { openMemory } from 'engram/facade';
import { resolveModel } from 'engram/llm';
import { createMemoryToolHandlers } from 'engram/memory-tool';

const MAX_STEPS = 10;
const MEMORY_TOOL_BETA = 'context-management-2025-06-27';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cwd: { type: 'string' },
    session: { type: 'string' },
    model: { type: 'string' },
    'offline-recall': { type: 'boolean', default: false },
  },
});
const cwd = resolve(values.cwd ?? process.cwd());
const mainModel = values.model ?? process.env.EXAMPLE_MODEL ?? 'claude-sonnet-5';
const log = (line) => process.stderr.write(`[engram] ${line}\n`);

/** engram's background work speaks a neutral message model: give every message an id. */
function toNeutral(history) {
  return history.map((message, i) => ({
    id: `m${i}`,
    role: message.role,
    content: (typeof message.content === 'string'
      ? [{ type: 'text', text: message.content }]
      : message.content
    )
      .map((block) => {
        if (block.type === 'text') return { type: 'text', text: block.text };
        if (block.type === 'tool_use')
          return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
        if (block.type === 'tool_result')
          return {
            type: 'tool_result',
            tool_use_id: block.tool_use_id,
            content: block.content,
            ...(block.is_error ? { is_error: true } : {}),
          };
        return undefined;
      })
      .filter(Boolean),
  }));
}

/** Only what the next request needs: the API's reply objects carry extra fields. */
function assistantParam(content) {
  return content
    .filter((b) => b.type === 'text' || b.type === 'tool_use')
    .map((b) =>
      b.type === 'text'
        ? { type: 'text', text: b.text }
        : { type: 'tool_use', id: b.id, name: b.name, input: b.input },
    );
}

async function main() {
  const background = resolveModel({ env: process.env });
  if (!background.ok)
    log(`no background model (${background.reason.split('.')[0]}); extraction is off`);
  const memory = await openMemory({
    cwd,
    ...(background.ok ? { model: background.model } : {}),
    modelRecall: !values['offline-recall'],
    onEvent: (event) => {
      if (event.kind === 'saved') log(event.notice.text);
      if (event.kind === 'recall' && event.result.selected.length > 0)
        log(`recalled ${event.result.selected.map((m) => m.file).join(', ')}`);
      if (event.kind === 'error')
        log(`${event.where} failed: ${event.error?.message ?? event.error}`);
    },
  });
  const client = new Anthropic();
  const memoryTool = betaMemoryTool(createMemoryToolHandlers({ memoryDir: memory.memoryDir }));
  // The guidance names the directory on disk; the memory tool shows the same folder as /memories.
  const system = `${await memory.systemPrompt()}\nYour \`memory\` tool works on this same directory: its /memories folder is ${memory.memoryDir}.\n`;
  const history =
    values.session && existsSync(values.session)
      ? JSON.parse(await readFile(values.session, 'utf8')).messages
      : [];

  async function turn(userText) {
    // Awaiting recall makes memories arrive with this message; a latency-sensitive host would not
    // wait and would instead poll attachments() after every model call and tool run.
    await memory.beforeTurn(userText, toNeutral(history));
    const recalled = memory.attachments(toNeutral(history));
    history.push({
      role: 'user',
      content: [
        { type: 'text', text: userText },
        ...recalled.map((text) => ({ type: 'text', text })),
      ],
    });
    for (let step = 0; step < MAX_STEPS; step++) {
      const response = await client.beta.messages.create({
        model: mainModel,
        max_tokens: 2048,
        system,
        messages: history,
        tools: [{ type: 'memory_20250818', name: 'memory' }],
        betas: [MEMORY_TOOL_BETA],
      });
      history.push({ role: 'assistant', content: assistantParam(response.content) });
      if (response.stop_reason !== 'tool_use') {
        const text = response.content.filter((b) => b.type === 'text').map((b) => b.text);
        process.stdout.write(`${text.join('\n')}\n`);
        break;
      }
      const results = [];
      for (const block of response.content) {
        if (block.type !== 'tool_use') continue;
        if (block.name !== 'memory') {
          results.push({
            type: 'tool_result',
            tool_use_id: block.id,
            content: `Unknown tool ${block.name}`,
            is_error: true,
          });
          continue;
        }
        try {
          const content = await memoryTool.run(block.input, {
            toolUse: block,
            toolUseBlock: block,
          });
          results.push({ type: 'tool_result', tool_use_id: block.id, content });
        } catch (error) {
          results.push({
            type: 'tool_result',
            tool_use_id: block.id,
            content: String(error?.message ?? error),
            is_error: true,
          });
        }
      }
      history.push({ role: 'user', content: results });
    }
    memory.afterTurn(toNeutral(history));
  }

  try {
    if (positionals.length > 0) {
      for (const text of positionals) await turn(text);
    } else {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      for (;;) {
        const text = await rl.question('> ').catch(() => undefined);
        if (text === undefined || text.trim() === '/exit') break;
        if (text.trim() !== '') await turn(text);
      }
      rl.close();
    }
  } finally {
    await memory.close();
    if (values.session)
      await writeFile(values.session, `${JSON.stringify({ messages: history }, null, 2)}\n`);
  }
}

main().catch((error) => {
  // A person runs this: say what went wrong and what to do, not a stack trace.
  const message = error?.message ?? String(error);
  const auth = /authentication|api[_ ]?key|x-api-key/i.test(message);
  process.stderr.write(
    auth
      ? `${message}\nSet ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) to run the agent.\n`
      : `${process.env.DEBUG ? (error?.stack ?? message) : message}\n`,
  );
  process.exitCode = 1;
});
