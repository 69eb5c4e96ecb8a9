import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACTION_HEADINGS } from '../../src/extract/prompts.js';
import { parseIndexEntries } from '../../src/memdir/index.js';
import { SELECT_TOOL_NAME } from '../../src/recall/prompts.js';
import {
  DEFAULT_NOTES_SECTIONS,
  descriptionLineOf,
  UPDATE_INSTRUCTION_HEADINGS,
} from '../../src/session/prompts.js';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from '../../src/testing/index.js';
import {
  claudeCommand,
  ENGRAM_MAIN,
  eventually,
  REPO,
  run,
  streamEvents,
  systemMessages,
} from './support.js';

// The real Claude Code CLI with engram's plugin installed from this repository, offline, in a
// temporary HOME. Claude Code and engram's hooks talk to one loopback server that records every
// request; `route` answers each client the way its real model would be asked to.

const CLAUDE = claudeCommand();
const REMEMBERED_BODY = 'Refunds go through the ledger service, never a direct UPDATE on payments.';
const EXTRACTED_BODY = 'Production deploys happen only on the Tuesday release train.';
const NOTES_MARKER = 'Refund flow half migrated; the ledger client is the next step.';
const AUTO_MEMORY_SECTION = 'persistent file-based memory';
/** Claude Code names a plugin's MCP tools mcp__plugin_<plugin>_<server>__<tool>. */
const MCP_RECALL_TOOL = 'mcp__plugin_engram_engram__memory_recall';

let root: string;
let home: string;
let project: string;
let server: ScriptedModelServer;
let memoryDir: string;

// biome-ignore lint/suspicious/noExplicitAny: request bodies are read field by field.
const lastUserText = (body: any): string => {
  // Claude Code may end a request with a system-role message (hook context); skip past it.
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
};
interface Block {
  type?: string;
  name?: string;
}
interface Msg {
  role?: string;
  content?: unknown;
}
// biome-ignore lint/suspicious/noExplicitAny: request bodies are read field by field.
const messagesOf = (body: any): Msg[] => (Array.isArray(body?.messages) ? body.messages : []);
const blocksOf = (m: Msg): Block[] => (Array.isArray(m.content) ? (m.content as Block[]) : []);
// biome-ignore lint/suspicious/noExplicitAny: as above.
const toolNames = (body: any): string[] => (body.tools ?? []).map((t: { name: string }) => t.name);
const isToolResultTurn = (req: RecordedRequest) => lastUserText(req.body).includes('tool_result');

/** Answers for every client on the server: engram's forked agents, its selector, Claude Code. */
function route(req: RecordedRequest): ScriptStep {
  const text = lastUserText(req.body);
  if (text.includes(EXTRACTION_HEADINGS.intro)) {
    if (isToolResultTurn(req)) return { text: 'Saved.' };
    const index = join(memoryDir, 'MEMORY.md');
    const current = existsSync(index) ? readFileSync(index, 'utf8') : '';
    return {
      toolUse: [
        {
          name: 'write',
          input: {
            path: join(memoryDir, 'tuesday-release-train.md'),
            content: `---\nname: Tuesday release train\ndescription: production deploys go out only on the Tuesday release train\ntype: project\n---\n${EXTRACTED_BODY}\n**Why:** on-call is staffed for Tuesdays.\n**How to apply:** plan merges for Tuesday.\n`,
          },
        },
        {
          name: 'write',
          input: {
            path: index,
            content: `${current}- [Tuesday release train](tuesday-release-train.md) — deploys only on Tuesdays\n`,
          },
        },
      ],
    };
  }
  if (text.includes(UPDATE_INSTRUCTION_HEADINGS[4])) {
    if (isToolResultTurn(req)) return { text: 'Notes updated.' };
    const notesPath = /`([^`]*notes\.md)`/.exec(req.rawBody)?.[1];
    const current = descriptionLineOf(DEFAULT_NOTES_SECTIONS[1]!);
    return {
      toolUse: [
        {
          name: 'edit',
          input: {
            path: notesPath,
            old_string: current,
            new_string: `${current}\n${NOTES_MARKER}`,
          },
        },
      ],
    };
  }
  if (toolNames(req.body).includes(SELECT_TOOL_NAME))
    return { toolUse: [{ name: SELECT_TOOL_NAME, input: { files: [] } }] };
  // Claude Code's own /compact asks for an <analysis> and a <summary> block, without tools.
  if (text.includes('<summary>') || text.includes('conversation to summarize'))
    return {
      text: '<analysis>One task so far.</analysis>\n<summary>The user is migrating refunds to the ledger service.</summary>',
    };
  // The MCP turn: Claude Code defers MCP tools behind ToolSearch, so load the tool, then call it.
  if (req.rawBody.includes('MCP-RECALL')) {
    const recallTool = toolNames(req.body).find((n) => n.endsWith('memory_recall'));
    const called = (name: string) =>
      messagesOf(req.body).some((m) =>
        blocksOf(m).some((b) => b.type === 'tool_use' && b.name === name),
      );
    if (recallTool !== undefined && !called(recallTool))
      return { toolUse: [{ name: recallTool, input: { query: 'how do refunds reach payments' } }] };
    if (recallTool === undefined && !called('ToolSearch'))
      return {
        toolUse: [{ name: 'ToolSearch', input: { query: `select:${MCP_RECALL_TOOL}` } }],
      };
  }
  return { text: 'Done.' };
}

const PATH_WITHOUT_ENGRAM = `${dirname(process.execPath)}:/usr/bin:/bin`;

/** Claude Code reaches a model; engram's hooks find none (Claude Code on Foundry, no Anthropic key). */
function noEngramModel(): Record<string, string> {
  return {
    CLAUDE_CODE_USE_FOUNDRY: '1',
    ANTHROPIC_FOUNDRY_BASE_URL: server.url,
    ANTHROPIC_FOUNDRY_API_KEY: 'test-key',
  };
}

/** Claude Code and engram's hooks both use the Anthropic API (the loopback server). */
function withEngramModel(): Record<string, string> {
  return { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key' };
}

function baseEnv(model: Record<string, string>): Record<string, string> {
  return {
    HOME: home,
    PATH: PATH_WITHOUT_ENGRAM,
    TMPDIR: join(root, 'tmp'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...model,
  };
}

async function claude(args: string[], model: Record<string, string>) {
  const result = await run(CLAUDE.file, [...CLAUDE.prefix, ...args], {
    cwd: project,
    env: baseEnv(model),
    timeoutMs: 180_000,
  });
  if (result.code !== 0)
    throw new Error(`claude ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result;
}

/** One `claude -p` turn; returns its stream events and the requests Claude Code made. */
async function prompt(text: string, model: Record<string, string>, extra: string[] = []) {
  const before = server.requests.length;
  const result = await claude(
    ['-p', text, '--output-format', 'stream-json', '--verbose', ...extra],
    model,
  );
  const events = streamEvents(result.stdout);
  const sessionId = events.find((e) => e.type === 'result')?.session_id as string;
  const mine = server.requests
    .slice(before)
    .filter((r) => JSON.stringify(r.body.system ?? '').includes('Claude'));
  return { events, sessionId, requests: mine, messages: systemMessages(events) };
}

const engram = (args: string[]) =>
  execFileSync(process.execPath, [ENGRAM_MAIN, ...args], {
    cwd: project,
    env: { HOME: home, PATH: PATH_WITHOUT_ENGRAM },
    encoding: 'utf8',
  });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-claude-code-'));
  home = join(root, 'home');
  project = join(root, 'shop');
  await mkdir(join(root, 'tmp'), { recursive: true });
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  execFileSync('git', ['init', '-q', project]);
  await writeFile(join(project, 'README.md'), '# shop\n');
  server = await startScriptedModelServer({ fallback: route });
  memoryDir = JSON.parse(engram(['path', '--json'])).path;
  // A memory saved beforehand, the way a person saves one.
  engram([
    'add',
    '--type',
    'feedback',
    '--name',
    'refunds go through the ledger',
    '--description',
    'refunds must go through the ledger service, never straight to the payments table',
    '--body',
    `${REMEMBERED_BODY}\n**Why:** direct updates skipped the audit trail.\n**How to apply:** any refund code path.`,
  ]);

  // Nothing named engram on the PATH Claude Code and its hooks get.
  expect(() =>
    execFileSync('/bin/sh', ['-c', 'command -v engram'], { env: { PATH: PATH_WITHOUT_ENGRAM } }),
  ).toThrow();
  await claude(['plugin', 'marketplace', 'add', REPO], noEngramModel());
  await claude(['plugin', 'install', 'engram@engram'], noEngramModel());
}, 600_000);

afterAll(async () => {
  await server?.close();
  // A detached extraction may still be closing its log in HOME: retry instead of failing.
  await rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

// Each test runs one to three `claude -p` sessions: seconds each, far more on a loaded machine.
describe('engram as a Claude Code plugin (real CLI, offline)', { timeout: 480_000 }, () => {
  it('the first session turns Claude Code auto memory off and says so; later sessions have one memory system', async () => {
    const first = await prompt('hello', noEngramModel());
    expect(first.messages.join('\n')).toMatch(/turned off Claude Code's built-in auto memory/);
    const settings = JSON.parse(await readFile(join(home, '.claude', 'settings.json'), 'utf8'));
    expect(settings.autoMemoryEnabled).toBe(false);
    expect(settings.enabledPlugins['engram@engram']).toBe(true);

    const next = await prompt('what is in this repository?', noEngramModel());
    const request = JSON.stringify(next.requests.at(-1)?.body);
    expect(request).not.toContain(AUTO_MEMORY_SECTION);
    expect(request).not.toContain(join(home, '.claude', 'projects'));
    // engram's memory section is there instead, naming engram's directory.
    expect(request).toContain(memoryDir);
  });

  it('a saved memory reaches the model on a related prompt and not on an unrelated one', async () => {
    const related = await prompt(
      'add a partial refund endpoint that updates the payments table for refunds',
      noEngramModel(),
    );
    expect(JSON.stringify(related.requests.at(-1)?.body)).toContain(REMEMBERED_BODY);
    const unrelated = await prompt('rename the CSS colour variables in the theme', noEngramModel());
    expect(JSON.stringify(unrelated.requests.at(-1)?.body)).not.toContain(REMEMBERED_BODY);
  });

  it('with no model configured, one systemMessage per session says how to enable extraction', async () => {
    const turn = await prompt('tidy the imports in the checkout module', noEngramModel());
    const notices = turn.messages.filter((m) => m.startsWith('engram:'));
    const noModel = notices.filter((m) => /no model is configured/.test(m));
    expect(noModel).toHaveLength(1);
    expect(noModel[0]).toMatch(/ANTHROPIC_API_KEY/);
    expect(noModel[0]).not.toContain('\n');
    // The same session, resumed: said once already.
    const again = await prompt('and the cart module', noEngramModel(), [
      '--resume',
      turn.sessionId,
    ]);
    expect(again.messages.filter((m) => /no model is configured/.test(m))).toEqual([]);
  });

  it('memory_recall through the MCP server gives the model the memory body', async () => {
    const turn = await prompt('MCP-RECALL: check what you remember', noEngramModel(), [
      '--allowedTools',
      MCP_RECALL_TOOL,
    ]);
    // The request after the call carries the tool's result as Claude Code gave it to the model.
    const last = turn.requests.at(-1)?.body;
    const results = messagesOf(last).flatMap((m) =>
      blocksOf(m).filter((b) => b.type === 'tool_result'),
    );
    const recalled = JSON.stringify(results.at(-1));
    expect(recalled).toContain(REMEMBERED_BODY);
  });

  it('the Stop hook extraction saves a memory with its index line', async () => {
    await prompt(
      'remember for later: we only deploy to production on the Tuesday release train',
      withEngramModel(),
    );
    const file = join(memoryDir, 'tuesday-release-train.md');
    await eventually(() => (existsSync(file) ? true : undefined));
    expect(readFileSync(file, 'utf8')).toContain(EXTRACTED_BODY);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const index = await eventually(() => {
      const text = readFileSync(join(memoryDir, 'MEMORY.md'), 'utf8');
      return text.includes('tuesday-release-train.md') ? text : undefined;
    });
    expect(parseIndexEntries(index).map((e) => e.file)).toContain('tuesday-release-train.md');
  });

  it('a /compact-ed session gets its notes back at SessionStart', async () => {
    const first = await prompt('start migrating refunds to the ledger client', withEngramModel());
    await prompt('/compact', withEngramModel(), ['--resume', first.sessionId]);
    const after = await prompt('where were we?', withEngramModel(), ['--resume', first.sessionId]);
    const request = JSON.stringify(after.requests.at(-1)?.body);
    expect(request).toContain(NOTES_MARKER);
    expect(request).not.toContain('start migrating refunds to the ledger client');
  });
});
