/**
 * One story through every door: the library (`createEngram`), the memory-tool handler, the CLI,
 * the Claude Code hooks (child processes fed Claude Code's hook JSON and a real-shaped JSONL
 * transcript) and the MCP server (the official SDK client over stdio). They all run on one
 * runtime, so a memory saved through any door is recalled through every other with the same
 * injected bytes, and `engram stats` counts the recalls whichever door made them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createEngram, memoryToolHandlersFor } from 'engram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, requireBuild, runCliProcess, tempRoot } from './support/cli-process.js';
import { CcTranscript } from './support/transcripts.js';

const temp = await tempRoot('engram-doors-');
afterAll(() => temp.cleanup());
beforeAll(() => requireBuild());

const SESSION = '3f2c9a4e-8b1d-4c6f-9e2a-5d7b8c9e0f1a';

/** A project with a private home: no model is configured, so every door recalls offline. */
async function world(name: string) {
  const root = await temp.fresh(name);
  const home = join(root, 'home');
  const project = join(root, 'project');
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  const env = cliEnv(home);
  const transcript = new CcTranscript(SESSION, project);
  transcript.user('Good morning, we pick up the billing work today.');
  transcript.reply({ text: 'Morning. Where do you want to start?' });
  const transcriptPath = join(root, `${SESSION}.jsonl`);
  await writeFile(transcriptPath, transcript.toJsonl());
  const engram = createEngram({
    cwd: project,
    env: { ENGRAM_HOME: env.ENGRAM_HOME, ENGRAM_MANAGED_DIR: env.ENGRAM_MANAGED_DIR },
    homedir: home,
  });

  const cli = (args: string[], stdin?: string) =>
    stdin === undefined
      ? runCliProcess(args, env, project)
      : runWithStdin(args, env, project, stdin);

  /** UserPromptSubmit, as Claude Code sends it; returns the additionalContext ('' for none). */
  async function hookRecall(prompt: string): Promise<string> {
    const run = await cli(
      ['hook', 'user-prompt-submit'],
      JSON.stringify({
        session_id: SESSION,
        transcript_path: transcriptPath,
        cwd: project,
        permission_mode: 'default',
        hook_event_name: 'UserPromptSubmit',
        prompt,
      }),
    );
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as {
      hookSpecificOutput?: { hookEventName: string; additionalContext: string };
    };
    if (out.hookSpecificOutput)
      expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    return out.hookSpecificOutput?.additionalContext ?? '';
  }

  async function cliRecall(query: string): Promise<{ injection: string; selected: unknown[] }> {
    const run = await cli(['recall', query, '--json']);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as { injection: string; selected: unknown[] };
  }

  async function libraryRecall(query: string): Promise<string> {
    const session = engram.openSession({ sessionId: 'library-session' });
    return (await session.recall({ query })).text;
  }

  async function mcp<T>(use: (client: Client) => Promise<T>): Promise<T> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      cwd: project,
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'doors', version: '1.0.0' });
    await client.connect(transport);
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  }

  return { root, project, env, engram, cli, hookRecall, cliRecall, libraryRecall, mcp };
}

function runWithStdin(args: string[], env: NodeJS.ProcessEnv, cwd: string, stdin: string) {
  return import('node:child_process').then(
    ({ execFile }) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        const child = execFile(
          process.execPath,
          [CLI, ...args],
          { env, cwd },
          (error, stdout, stderr) =>
            done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
        child.stdin?.end(stdin);
      }),
  );
}

function toolText(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content[0]?.text ?? '';
}

const NOTES_MEMORY = {
  type: 'feedback',
  name: 'Release notes in British English',
  description: 'release notes and changelog entries are written in British English spelling',
  body: 'Write release notes in British English spelling (colour, behaviour, organise).\n**Why:** the customers who read them are in the UK.\n**How to apply:** any changelog entry or release announcement.',
};

const INVOICE_MEMORY = `---
name: Invoice runs close on the fifth
description: the monthly invoice run closes on the fifth business day
type: project
---
The monthly invoice run closes on the fifth business day of the month.
**Why:** finance reconciles the ledger on the sixth.
**How to apply:** plan invoice changes so they ship before the fifth.
`;

describe('the same story through every door', () => {
  it('a memory saved through one door is recalled through each other door with identical injected bytes', {
    timeout: 180_000,
  }, async () => {
    const w = await world('bytes');

    // Saved through MCP (memory_save), recalled through the library, the CLI, the hook and MCP.
    const notesQuery = 'write the release notes for the changelog';
    const viaMcp = await w.mcp(async (client) => {
      const saved = await client.callTool({ name: 'memory_save', arguments: NOTES_MEMORY });
      expect(saved.isError, toolText(saved)).toBeFalsy();
      return toolText(
        await client.callTool({ name: 'memory_recall', arguments: { query: notesQuery } }),
      );
    });
    expect(viaMcp).toContain('Write release notes in British English spelling');
    expect(await w.libraryRecall(notesQuery)).toBe(viaMcp);
    expect((await w.cliRecall(notesQuery)).injection).toBe(viaMcp);
    expect(await w.hookRecall(notesQuery)).toBe(viaMcp);

    // Saved through the memory tool on the runtime (the library's door for Anthropic's tool).
    const handlers = memoryToolHandlersFor(w.engram);
    await handlers.create({
      command: 'create',
      path: '/memories/invoice-runs-close-on-the-fifth.md',
      file_text: INVOICE_MEMORY,
    });
    const invoiceQuery = 'when does the monthly invoice run close';
    const viaLibrary = await w.libraryRecall(invoiceQuery);
    expect(viaLibrary).toContain('closes on the fifth business day of the month');
    expect((await w.cliRecall(invoiceQuery)).injection).toBe(viaLibrary);
    expect(await w.hookRecall(invoiceQuery)).toBe(viaLibrary);
    expect(
      await w.mcp(async (client) =>
        toolText(
          await client.callTool({ name: 'memory_recall', arguments: { query: invoiceQuery } }),
        ),
      ),
    ).toBe(viaLibrary);

    // Saved through the CLI (engram add), recalled through the others.
    const add = await w.cli([
      'add',
      '--type',
      'user',
      '--name',
      'Prefers small pull requests',
      '--description',
      'the user prefers small pull requests split by concern',
      '--body',
      'Keep pull requests small and split them by concern; one reviewer should finish in ten minutes.',
    ]);
    expect(add.code, add.stderr).toBe(0);
    const prQuery = 'open the pull requests for this change';
    const viaCli = (await w.cliRecall(prQuery)).injection;
    expect(viaCli).toContain('Keep pull requests small');
    expect(await w.libraryRecall(prQuery)).toBe(viaCli);
    expect(await w.hookRecall(prQuery)).toBe(viaCli);
    expect(
      await w.mcp(async (client) =>
        toolText(await client.callTool({ name: 'memory_recall', arguments: { query: prQuery } })),
      ),
    ).toBe(viaCli);

    // Every door resolved the same directory: the runtime's.
    const path = await w.cli(['path', '--json']);
    expect(JSON.parse(path.stdout).path).toBe(w.engram.memoryDir);
  });

  it('3 prompt-hook recalls, 2 MCP memory_recall and 1 engram recall: engram stats counts 6 with their selection counts', {
    timeout: 180_000,
  }, async () => {
    const w = await world('stats');
    const add = await w.cli([
      'add',
      '--type',
      'feedback',
      '--name',
      'Release notes in British English',
      '--description',
      NOTES_MEMORY.description,
      '--body',
      NOTES_MEMORY.body,
    ]);
    expect(add.code, add.stderr).toBe(0);
    const match = 'write the release notes for the changelog';
    const nothing = 'rename the parser variable to something clearer';

    expect(await w.hookRecall(match)).toContain('British English');
    expect(await w.hookRecall(`${match} of version two`)).toContain('British English');
    expect(await w.hookRecall(nothing)).toBe('');
    await w.mcp(async (client) => {
      const hit = await client.callTool({ name: 'memory_recall', arguments: { query: match } });
      expect(toolText(hit)).toContain('British English');
      await client.callTool({ name: 'memory_recall', arguments: { query: nothing } });
    });
    expect((await w.cliRecall(match)).selected).toHaveLength(1);

    const stats = await w.cli(['stats', '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const report = JSON.parse(stats.stdout) as {
      recalls: number;
      ran: number;
      selectionCounts: number[];
      selectedTotal: number;
    };
    expect(report.recalls).toBe(6);
    expect(report.ran).toBe(6);
    // Two recalls found nothing, four found the one memory.
    expect(report.selectionCounts).toEqual([2, 4, 0, 0, 0, 0]);
    expect(report.selectedTotal).toBe(4);
    // The library reads the same log.
    expect((await w.engram.stats()).stats.recalls).toBe(6);
  });
});
