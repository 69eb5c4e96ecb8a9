/**
 * Acceptance for issue 9 (surfaces), black box: the built CLI as child processes (MCP over real
 * stdio with the official SDK client, Claude Code hooks fed the reference JSON shapes), the memory
 * tool handler through the SDK's own `betaMemoryTool`, the facade and the transcript reader from the
 * published entry points, and the example agent over three sessions. Data: a Go/Kubernetes project.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openMemory } from 'engram';
import { type Message, parseClaudeCodeTranscript } from 'engram/llm';
import { createMemoryToolHandlers } from 'engram/memory-tool';
import { type RecordedRequest, type ScriptStep, startScriptedModelServer } from 'engram/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CcTranscript } from './issue-7-9-support.js';

const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

let root: string;
let env: NodeJS.ProcessEnv;

function run(
  args: string[],
  options: { stdin?: string; cwd?: string; extraEnv?: NodeJS.ProcessEnv } = {},
) {
  return new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((done) => {
    const started = performance.now();
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...env, ...options.extraEnv }, cwd: options.cwd ?? root },
      (error, stdout, stderr) =>
        done({
          code: error ? Number(error.code ?? 1) : 0,
          stdout,
          stderr,
          ms: performance.now() - started,
        }),
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  root = await mkdtemp(join(tmpdir(), 'engram-acc9-'));
  env = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ENGRAM_HOME: join(root, 'engram-home'),
    ENGRAM_MANAGED_DIR: join(root, 'managed'),
  };
  mkdirSync(env.HOME!, { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const KUBE_MEMORY = `---
name: Deploys go through the canary namespace
description: kubernetes deploys of the billing service must go to the canary namespace first
type: feedback
---
Always roll the billing service out to the \`billing-canary\` namespace before \`billing-prod\`.
**Why:** a direct prod rollout in May dropped 3% of invoices during a schema change.
**How to apply:** any kubectl apply, helm upgrade or deploy script touching billing.
`;

// ---------------------------------------------------------------------------------------------
describe('Claude Code transcript reader', () => {
  it('regroups split replies, pairs tool calls, skips noise, tolerates unknown lines and a torn last line', () => {
    const t = new CcTranscript('c0ffee00-1234-4abc-8def-000000000009', '/srv/billing');
    t.user('Why does the billing pod crash-loop?');
    t.reply(
      { thinking: 'check logs' },
      { text: 'Reading the pod logs.' },
      {
        toolUse: { id: 'toolu_01Logs', name: 'Bash', input: { command: 'kubectl logs billing-0' } },
      },
      {
        toolUse: {
          id: 'toolu_01Desc',
          name: 'Bash',
          input: { command: 'kubectl describe pod billing-0' },
        },
      },
    ).noise();
    t.result('toolu_01Logs', 'panic: missing env BILLING_DSN');
    t.result('toolu_01Desc', 'Restart Count: 14');
    t.lines.push({
      type: 'queue-operation',
      operation: 'enqueue',
      timestamp: '2026-03-14T09:10:00.000Z',
      sessionId: t.sessionId,
    });
    t.lines.push({ type: 'some-future-line-type', payload: { x: 1 } });
    t.reply({ text: 'BILLING_DSN is missing from the deployment.' });
    const jsonl = `${t.toJsonl()}{"parentUuid":"abc","type":"user","message":{"role":"user","content":"half-wr`;
    const parsed = parseClaudeCodeTranscript(jsonl);
    const m = parsed.messages;
    expect(m.map((x) => x.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(m[1]!.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
    const results = m[2]!.content.filter((b) => b.type === 'tool_result');
    expect(results.map((b) => (b as { tool_use_id: string }).tool_use_id)).toEqual([
      'toolu_01Logs',
      'toolu_01Desc',
    ]);
    expect(JSON.stringify(m[3]!.content)).toContain('BILLING_DSN is missing');
  });
});

// ---------------------------------------------------------------------------------------------
describe('Anthropic memory tool handler through betaMemoryTool', () => {
  let dir: string;
  let tool: ReturnType<typeof betaMemoryTool>;
  const call = async (input: Record<string, unknown>) => {
    try {
      return { ok: true, text: String(await tool.run(input as never)) };
    } catch (error) {
      return { ok: false, text: (error as Error).message };
    }
  };

  beforeAll(async () => {
    dir = join(root, 'mt-memory');
    tool = betaMemoryTool(createMemoryToolHandlers({ memoryDir: dir }));
    expect(tool.name).toBe('memory');
    expect(tool.type).toBe('memory_20250818');
  });

  it('create, view (dir and file with a range), str_replace (multi-line), insert, rename, delete', async () => {
    const created = await call({
      command: 'create',
      path: '/memories/canary-deploys.md',
      file_text: KUBE_MEMORY,
    });
    expect(created).toEqual({
      ok: true,
      text: 'File created successfully at: /memories/canary-deploys.md',
    });
    expect(statSync(join(dir, 'canary-deploys.md')).mode & 0o777).toBe(0o600);
    expect(
      (await call({ command: 'create', path: '/memories/canary-deploys.md', file_text: 'x' })).ok,
    ).toBe(false);
    // The index follows the topic file (two-step save).
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).toContain('canary-deploys.md');

    const nested = await call({
      command: 'create',
      path: '/memories/runbooks/helm.md',
      file_text: 'helm notes\n',
    });
    expect(nested.ok).toBe(true);
    expect(statSync(join(dir, 'runbooks')).mode & 0o777).toBe(0o700);

    const listing = await call({ command: 'view', path: '/memories' });
    expect(listing.ok).toBe(true);
    expect(listing.text).toContain('canary-deploys.md');
    expect(listing.text).toContain('helm.md');

    const viewed = await call({
      command: 'view',
      path: '/memories/canary-deploys.md',
      view_range: [6, 7],
    });
    expect(viewed.text).toMatch(/^ {5}6\tAlways roll the billing service/m);
    expect(viewed.text).toMatch(/^ {5}7\t\*\*Why:\*\*/m);
    expect(viewed.text).not.toMatch(/^ {5}5\t/m);

    const replaced = await call({
      command: 'str_replace',
      path: '/memories/canary-deploys.md',
      old_str: 'before `billing-prod`.\n**Why:** a direct prod rollout in May',
      new_str:
        'before `billing-prod`, and wait 10 minutes.\n**Why:** a direct prod rollout in June',
    });
    expect(replaced.ok, replaced.text).toBe(true);
    expect(readFileSync(join(dir, 'canary-deploys.md'), 'utf8')).toContain(
      'wait 10 minutes.\n**Why:** a direct prod rollout in June',
    );
    const missing = await call({
      command: 'str_replace',
      path: '/memories/canary-deploys.md',
      old_str: 'no such text',
      new_str: 'y',
    });
    expect(missing.ok).toBe(false);
    expect(missing.text).toMatch(/did not appear verbatim/);

    const inserted = await call({
      command: 'insert',
      path: '/memories/runbooks/helm.md',
      insert_line: 0,
      insert_text: 'first line\n',
    });
    expect(inserted.ok, inserted.text).toBe(true);
    expect(readFileSync(join(dir, 'runbooks/helm.md'), 'utf8')).toBe('first line\nhelm notes\n');
    expect(
      (
        await call({
          command: 'insert',
          path: '/memories/runbooks/helm.md',
          insert_line: 99,
          insert_text: 'x',
        })
      ).ok,
    ).toBe(false);

    const renamed = await call({
      command: 'rename',
      old_path: '/memories/runbooks/helm.md',
      new_path: '/memories/runbooks/helm-upgrades.md',
    });
    expect(renamed.ok, renamed.text).toBe(true);
    expect(existsSync(join(dir, 'runbooks/helm-upgrades.md'))).toBe(true);

    const absent = await call({ command: 'view', path: '/memories/nothing-here.md' });
    expect(absent).toEqual({
      ok: false,
      text: 'The path /memories/nothing-here.md does not exist. Please provide a valid path.',
    });

    // delete of a memory revokes it: kept on disk, off the index.
    const deleted = await call({ command: 'delete', path: '/memories/canary-deploys.md' });
    expect(deleted.ok, deleted.text).toBe(true);
    expect(readFileSync(join(dir, 'MEMORY.md'), 'utf8')).not.toContain('canary-deploys.md');
    if (existsSync(join(dir, 'canary-deploys.md'))) {
      expect(readFileSync(join(dir, 'canary-deploys.md'), 'utf8')).toMatch(/revoked/);
      // Creating it again after the delete: refused (never overwrite a revocation), with a reason
      // the model can act on, not a bare "already exists" about a file it believes gone.
      const again = await call({
        command: 'create',
        path: '/memories/canary-deploys.md',
        file_text: KUBE_MEMORY,
      });
      expect(again.ok).toBe(false);
      expect(again.text).toMatch(
        /^File \/memories\/canary-deploys.md already exists: .*revoked.*another file name/,
      );
    }
  });

  it('refuses every escape and the root', async () => {
    mkdirSync(dir, { recursive: true });
    symlinkSync('/etc', join(dir, 'etc-link'));
    const refused: Array<Record<string, unknown>> = [
      { command: 'create', path: '/memoriesX/a', file_text: 'x' },
      { command: 'view', path: '/memoriesX/a' },
      { command: 'create', path: '/memories/../x', file_text: 'x' },
      { command: 'create', path: '/memories/%2e%2e/x', file_text: 'x' },
      { command: 'create', path: '/memories/a\\..\\..\\x', file_text: 'x' },
      { command: 'view', path: '/memories/etc-link/passwd' },
      { command: 'create', path: '/memories/etc-link/engram-owned', file_text: 'x' },
      { command: 'create', path: '/memories/a\u0000b.md', file_text: 'x' },
      { command: 'create', path: '/etc/engram-x', file_text: 'x' },
      { command: 'view', path: join(root, 'mt-memory') },
      { command: 'delete', path: '/memories' },
      { command: 'delete', path: '/memories/' },
      { command: 'rename', old_path: '/memories', new_path: '/memories/x' },
      { command: 'rename', old_path: '/memories/', new_path: '/memories/y' },
    ];
    for (const input of refused) {
      const result = await call(input);
      expect(result.ok, JSON.stringify(input)).toBe(false);
    }
    expect(existsSync(join(root, 'x'))).toBe(false);
    expect(existsSync('/etc/engram-owned')).toBe(false);
    expect(lstatSync(dir).isDirectory()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
describe('engram mcp over a real stdio child process (official SDK client)', () => {
  it('lists tools, saves (and refuses a bad save as a tool error), recalls, revokes', async () => {
    const dir = join(root, 'mcp-memory');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp', '--dir', dir],
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'acceptance', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual([
        'memory_audit',
        'memory_list',
        'memory_read',
        'memory_recall',
        'memory_revoke',
        'memory_save',
      ]);

      const noDescription = await client.callTool({
        name: 'memory_save',
        arguments: {
          type: 'reference',
          name: 'Grafana board',
          description: '',
          body: 'https://grafana.example/d/billing',
        },
      });
      expect(noDescription.isError).toBe(true);
      expect(JSON.stringify(noDescription.content)).toMatch(/description/i);
      const noWhy = await client.callTool({
        name: 'memory_save',
        arguments: {
          type: 'feedback',
          name: 'Canary first',
          description: 'deploy billing to canary first',
          body: 'Canary before prod.',
        },
      });
      expect(noWhy.isError).toBe(true);
      expect(JSON.stringify(noWhy.content)).toMatch(/Why/);

      const saved = await client.callTool({
        name: 'memory_save',
        arguments: {
          type: 'feedback',
          name: 'Deploys go through the canary namespace',
          description:
            'kubernetes deploys of the billing service must go to the canary namespace first',
          body: 'Roll billing out to billing-canary before billing-prod.\n**Why:** a direct prod rollout dropped 3% of invoices.\n**How to apply:** any helm upgrade touching billing.',
        },
      });
      expect(saved.isError, JSON.stringify(saved.content)).toBeFalsy();
      const savedText = JSON.stringify(saved.content);
      expect(savedText).toMatch(/Saved/);

      const recalled = await client.callTool({
        name: 'memory_recall',
        arguments: { query: 'helm upgrade the billing service deploy to kubernetes' },
      });
      expect(recalled.isError).toBeFalsy();
      expect(JSON.stringify(recalled.content)).toContain('billing-canary before billing-prod');

      const listed = await client.callTool({ name: 'memory_list', arguments: {} });
      const file = /\] ([^\s]+\.md) /.exec(JSON.stringify(listed.content))?.[1];
      expect(file).toBeTruthy();

      const resources = (await client.listResources()).resources.map((r) => r.uri);
      expect(resources.some((u) => /index/i.test(u))).toBe(true);

      const missing = await client.callTool({
        name: 'memory_read',
        arguments: { file: 'no-such-memory.md' },
      });
      expect(missing.isError).toBe(true);

      const revoked = await client.callTool({
        name: 'memory_revoke',
        arguments: { file, reason: 'canary namespace was retired' },
      });
      expect(revoked.isError, JSON.stringify(revoked.content)).toBeFalsy();
      const after = await client.callTool({
        name: 'memory_recall',
        arguments: { query: 'helm upgrade the billing service deploy to kubernetes' },
      });
      expect(JSON.stringify(after.content)).not.toContain('billing-canary before billing-prod');
      const audit = await client.callTool({ name: 'memory_audit', arguments: {} });
      expect(audit.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe('engram hook <event> (reference-shaped stdin JSON)', () => {
  const SID = '00893aaf-19fa-41d2-8238-13269b9b3ca1';
  let project: string;
  let transcript: string;

  beforeAll(async () => {
    project = join(root, 'billing-svc');
    mkdirSync(project, { recursive: true });
    const path = JSON.parse((await run(['path', '--cwd', project, '--json'])).stdout)
      .path as string;
    const add = await run([
      'add',
      '--cwd',
      project,
      '--type',
      'feedback',
      '--name',
      'Deploys go through the canary namespace',
      '--description',
      'kubernetes deploys of the billing service must go to the canary namespace first',
      '--body',
      'Roll billing out to billing-canary before billing-prod.\n**Why:** a direct prod rollout dropped 3% of invoices.\n**How to apply:** any helm upgrade touching billing.',
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect(existsSync(join(path, 'MEMORY.md'))).toBe(true);
    const t = new CcTranscript(SID, project);
    t.user('Look at the billing chart.');
    t.reply({ text: 'The chart has two values files.' });
    transcript = join(root, `${SID}.jsonl`);
    writeFileSync(transcript, t.toJsonl());
  });

  const common = (event: string) => ({
    session_id: SID,
    transcript_path: transcript,
    cwd: project,
    hook_event_name: event,
  });

  it('session-start prints the guidance and the index as additionalContext', async () => {
    const r = await run(['hook', 'session-start'], {
      cwd: project,
      stdin: JSON.stringify({
        ...common('SessionStart'),
        source: 'startup',
        model: 'claude-sonnet-5',
      }),
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain(
      'Deploys go through the canary namespace',
    );
    expect(out.hookSpecificOutput.additionalContext.length).toBeLessThanOrEqual(10_000);
  });

  it('session-start after a compaction also brings back the session notes', async () => {
    const sid = 'c0mpact0-1111-4222-8333-944455556677';
    const dir = join(env.ENGRAM_HOME!, 'session-memory', sid);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'notes.md'),
      '# Current State\n_Now and next._\nhelm diff shows 2 changed values; next: apply to billing-canary.\n',
    );
    const r = await run(['hook', 'session-start'], {
      cwd: project,
      stdin: JSON.stringify({ ...common('SessionStart'), session_id: sid, source: 'compact' }),
    });
    expect(r.code, r.stderr).toBe(0);
    const ctx = JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string;
    expect(ctx).toContain('next: apply to billing-canary.');
    expect(ctx.length).toBeLessThanOrEqual(10_000);
  });

  it('user-prompt-submit recalls offline and stays under 10,000 characters', async () => {
    const r = await run(['hook', 'user-prompt-submit'], {
      cwd: project,
      stdin: JSON.stringify({
        ...common('UserPromptSubmit'),
        permission_mode: 'default',
        prompt: 'Run the helm upgrade for the billing service on kubernetes',
      }),
    });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(out.hookSpecificOutput.additionalContext).toContain(
      'billing-canary before billing-prod',
    );
    expect(out.hookSpecificOutput.additionalContext.length).toBeLessThanOrEqual(10_000);
    expect(r.ms).toBeLessThan(15_000);

    const unrelated = await run(['hook', 'user-prompt-submit'], {
      cwd: project,
      stdin: JSON.stringify({
        ...common('UserPromptSubmit'),
        prompt: 'Translate the README into Portuguese',
      }),
    });
    expect(unrelated.code).toBe(0);
    expect(() => JSON.parse(unrelated.stdout)).not.toThrow();
  });

  it('user-prompt-submit does not repeat a memory the transcript shows was already injected', async () => {
    const prompt = 'Run the helm upgrade for the billing service on kubernetes';
    const first = await run(['hook', 'user-prompt-submit'], {
      cwd: project,
      stdin: JSON.stringify({ ...common('UserPromptSubmit'), prompt }),
    });
    const ctx = JSON.parse(first.stdout).hookSpecificOutput.additionalContext as string;
    expect(ctx).toContain('billing-canary');
    const shapes: Record<string, (t: CcTranscript) => void> = {
      // Current Claude Code: hook output recorded as an attachment line.
      attachment: (t) =>
        void t.lines.push({
          type: 'attachment',
          parentUuid: null,
          uuid: '5f0c7e61-2f5a-4a43-9d55-1c2b3a4d5e6f',
          timestamp: '2026-03-14T09:30:00.000Z',
          sessionId: SID,
          cwd: project,
          attachment: {
            type: 'hook_additional_context',
            content: [ctx],
            hookName: 'UserPromptSubmit',
            hookEvent: 'UserPromptSubmit',
          },
        }),
      // Older versions: injected text as a meta user line.
      meta: (t) => {
        t.user(ctx);
        (t.lines.at(-1) as { isMeta?: boolean }).isMeta = true;
      },
    };
    for (const [shape, add] of Object.entries(shapes)) {
      const t = new CcTranscript(SID, project);
      t.user('Look at the billing chart.');
      t.reply({ text: 'The chart has two values files.' });
      t.user(prompt);
      add(t);
      t.reply({ text: 'Upgraded.' });
      const path = join(root, `surfaced-${shape}.jsonl`);
      writeFileSync(path, t.toJsonl());
      const again = await run(['hook', 'user-prompt-submit'], {
        cwd: project,
        stdin: JSON.stringify({
          ...common('UserPromptSubmit'),
          transcript_path: path,
          prompt: `${prompt} again`,
        }),
      });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout, shape).not.toContain('billing-canary');
    }
  });

  it('stop and pre-compact without a model print valid JSON and return fast', async () => {
    const stop = await run(['hook', 'stop'], {
      cwd: project,
      stdin: JSON.stringify({
        ...common('Stop'),
        stop_hook_active: false,
        last_assistant_message: 'The chart has two values files.',
      }),
    });
    expect(stop.code, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout)).toBeTypeOf('object');
    const pre = await run(['hook', 'pre-compact'], {
      cwd: project,
      stdin: JSON.stringify({ ...common('PreCompact'), trigger: 'auto', custom_instructions: '' }),
    });
    expect(pre.code, pre.stderr).toBe(0);
    expect(JSON.parse(pre.stdout)).toBeTypeOf('object');
  });

  it('with a model: stop returns {} at once and extraction runs detached; pre-compact brings the notes up', async () => {
    const server = await startScriptedModelServer({ fallback: { text: 'Nothing worth saving.' } });
    const modelEnv = {
      ANTHROPIC_API_KEY: 'acc-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      ENGRAM_MODEL: 'anthropic:acc-hooks',
    };
    try {
      const t = new CcTranscript(SID, project);
      t.user('From now on we deploy billing only with helm, never kubectl apply on prod.');
      t.reply({ text: 'Understood: helm only for billing.' });
      const path = join(root, 'with-model.jsonl');
      writeFileSync(path, t.toJsonl());
      const stop = await run(['hook', 'stop'], {
        cwd: project,
        extraEnv: modelEnv,
        stdin: JSON.stringify({
          ...common('Stop'),
          transcript_path: path,
          stop_hook_active: false,
          last_assistant_message: 'Understood: helm only for billing.',
        }),
      });
      expect(stop.code, stop.stderr).toBe(0);
      expect(JSON.parse(stop.stdout)).toEqual({});
      // The detached extraction reaches the model with the conversation.
      for (let i = 0; i < 80 && server.requests.length === 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests[0]!.rawBody).toContain('never kubectl apply on prod');
      // The run records how far it read (its cursor, kept per session under ENGRAM_HOME) when done.
      const cursor = join(env.ENGRAM_HOME!, 'hooks', 'cursors', `${SID}.json`);
      for (let i = 0; i < 80 && !existsSync(cursor); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(cursor)).toBe(true);

      const pre = await run(['hook', 'pre-compact'], {
        cwd: project,
        extraEnv: modelEnv,
        stdin: JSON.stringify({
          ...common('PreCompact'),
          transcript_path: path,
          trigger: 'auto',
          custom_instructions: '',
        }),
      });
      expect(pre.code, pre.stderr).toBe(0);
      expect(JSON.parse(pre.stdout)).toEqual({});
      expect(existsSync(join(env.ENGRAM_HOME!, 'session-memory', SID, 'notes.md'))).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('install --project merges with other hooks, is idempotent; uninstall removes only ours', async () => {
    const settingsDir = join(project, '.claude');
    mkdirSync(settingsDir, { recursive: true });
    const theirs = {
      permissions: { allow: ['Bash(go test:*)'] },
      hooks: {
        Stop: [
          { matcher: '', hooks: [{ type: 'command', command: 'notify-send done', timeout: 5 }] },
        ],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }],
      },
    };
    const file = join(settingsDir, 'settings.json');
    writeFileSync(file, JSON.stringify(theirs, null, 2));
    const install = await run(['hook', 'install', '--project'], { cwd: project });
    expect(install.code, install.stderr).toBe(0);
    const once = JSON.parse(readFileSync(file, 'utf8'));
    const commands = (event: string, s = once) =>
      (s.hooks[event] ?? []).flatMap((g: { hooks: Array<{ command: string }> }) =>
        g.hooks.map((h) => h.command),
      );
    for (const [event, name] of [
      ['SessionStart', 'session-start'],
      ['UserPromptSubmit', 'user-prompt-submit'],
      ['Stop', 'stop'],
      ['PreCompact', 'pre-compact'],
    ]) {
      expect(
        commands(event!).some((c: string) => c.includes(`hook ${name}`)),
        event,
      ).toBe(true);
    }
    expect(commands('Stop')).toContain('notify-send done');
    expect(once.permissions).toEqual(theirs.permissions);
    expect(await run(['hook', 'install', '--project'], { cwd: project })).toMatchObject({
      code: 0,
    });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(once);

    const uninstall = await run(['hook', 'uninstall', '--project'], { cwd: project });
    expect(uninstall.code, uninstall.stderr).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.permissions).toEqual(theirs.permissions);
    expect(after.hooks.Stop).toEqual(theirs.hooks.Stop);
    expect(after.hooks.PreToolUse).toEqual(theirs.hooks.PreToolUse);
    expect(JSON.stringify(after)).not.toMatch(/engram/);
  });

  it('install --user writes ~/.claude/settings.json', async () => {
    const r = await run(['hook', 'install', '--user'], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    const user = JSON.parse(readFileSync(join(env.HOME!, '.claude', 'settings.json'), 'utf8'));
    expect(JSON.stringify(user.hooks.UserPromptSubmit)).toMatch(/hook user-prompt-submit/);
    expect((await run(['hook', 'uninstall', '--user'], { cwd: project })).code).toBe(0);
    expect(
      JSON.stringify(JSON.parse(readFileSync(join(env.HOME!, '.claude', 'settings.json'), 'utf8'))),
    ).not.toMatch(/engram/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('openMemory facade (offline)', () => {
  it('systemPrompt is stable, beforeTurn + attachments inject the relevant memory, compact and close work', async () => {
    const cwd = join(root, 'facade-project');
    mkdirSync(cwd, { recursive: true });
    const fenv = { ...env };
    const memory = await openMemory({ cwd, env: fenv, homedir: env.HOME! });
    const first = await memory.systemPrompt();
    // A memory written during the session shows up next session, not in this prompt.
    const tool = betaMemoryTool(
      createMemoryToolHandlers({
        memoryDir: JSON.parse((await run(['path', '--cwd', cwd, '--json'])).stdout).path,
      }),
    );
    await tool.run({
      command: 'create',
      path: '/memories/canary-deploys.md',
      file_text: KUBE_MEMORY,
    } as never);
    expect(await memory.systemPrompt()).toBe(first);

    const history: Message[] = [
      {
        id: 'u1',
        role: 'user',
        content: [{ type: 'text', text: 'helm upgrade billing on kubernetes now' }],
      },
    ];
    await memory.beforeTurn('helm upgrade billing on kubernetes now', history);
    const attached = memory.attachments(history);
    expect(attached.join('\n')).toContain('billing-canary');
    memory.afterTurn(history);
    const compacted = await memory.compact(history);
    expect(['notes', 'summary', 'truncation']).toContain(compacted.method);
    await memory.close();

    const next = await openMemory({ cwd, env: fenv, homedir: env.HOME! });
    expect(await next.systemPrompt()).toContain('canary-deploys.md');
    await next.close();
  });
});

// ---------------------------------------------------------------------------------------------
describe('examples/agent over three sessions (scripted model server)', () => {
  const AGENT = resolve(import.meta.dirname, '../../examples/agent/agent.mjs');
  const GO_RACE = `---
name: Go tests always run with the race detector
description: in the ingest repo, go test must always be run with -race; plain go test is not accepted
type: feedback
---
Run \`go test -race ./...\` in the ingest repo, never plain \`go test\`.
**Why:** a data race in the batch writer passed CI twice without -race.
**How to apply:** any time tests of the ingest Go packages are run or suggested.
`;
  const isMain = (r: RecordedRequest) =>
    JSON.stringify(r.body.tools ?? []).includes('memory_20250818');
  const injected = (r: RecordedRequest) =>
    (r.body.messages as Array<{ content: unknown }>)
      .flatMap((m) =>
        Array.isArray(m.content) ? (m.content as Array<{ type: string; text?: string }>) : [],
      )
      .filter((b) => b.type === 'text' && (b.text ?? '').includes('go test -race'))
      .filter((b) => !(b.text ?? '').startsWith('Run the'))
      .map((b) => b.text);

  it('a correction saved in session 1 is injected in session 3, and session 3 replays the same bytes', {
    timeout: 60_000,
  }, async () => {
    const project = join(root, 'ingest');
    mkdirSync(project, { recursive: true });
    const replies: ScriptStep[] = [];
    const server = await startScriptedModelServer({ fallback: null });
    const route = (r: RecordedRequest): ScriptStep =>
      isMain(r) ? (replies.shift() ?? { text: 'ok' }) : { text: 'Nothing to save.' };
    server.push(...Array.from({ length: 80 }, () => route));
    const agentEnv = {
      ...env,
      ANTHROPIC_API_KEY: 'acc-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      ENGRAM_MODEL: 'anthropic:acc-background',
    };
    const agent = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(
          process.execPath,
          [AGENT, '--cwd', project, '--offline-recall', '--model', 'acc-main', ...args],
          { env: agentEnv, cwd: project },
          (error, stdout, stderr) =>
            done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
    try {
      // Session 1: the user corrects the agent; the model saves it with the memory tool.
      replies.push(
        {
          toolUse: [
            {
              name: 'memory',
              input: { command: 'create', path: '/memories/go-race.md', file_text: GO_RACE },
            },
          ],
        },
        { text: 'Understood: -race from now on.' },
      );
      const s1 = await agent([
        'No: in this repo go test always runs with -race, plain go test is not accepted.',
      ]);
      expect(s1.code, s1.stderr).toBe(0);
      expect(s1.stdout).toContain('Understood: -race from now on.');

      // Session 2: unrelated; nothing injected.
      let mark = server.requests.length;
      replies.push({ text: 'Updated the changelog.' });
      expect(
        (await agent(['Add a changelog entry for version 2.4 of the dashboard colours.'])).code,
      ).toBe(0);
      const s2 = server.requests.slice(mark).filter(isMain);
      expect(s2.length).toBeGreaterThan(0);
      expect(s2.flatMap(injected)).toEqual([]);

      // Session 3: Go test work recalls the correction.
      const sessionFile = join(root, 'ingest-s3.json');
      mark = server.requests.length;
      replies.push({ text: 'Running the ingest tests with the race detector.' });
      const s3 = await agent([
        '--session',
        sessionFile,
        'Run the go tests for the ingest batch writer package.',
      ]);
      expect(s3.code, s3.stderr).toBe(0);
      const first = server.requests.slice(mark).filter(isMain);
      const bytes = first.flatMap(injected);
      expect(bytes.length).toBe(1);
      expect(bytes[0]).toContain('a data race in the batch writer passed CI twice');

      // Replay: resuming session 3 resends exactly the same injected bytes.
      mark = server.requests.length;
      replies.push({ text: 'Done again.' });
      expect(
        (await agent(['--session', sessionFile, 'Now the same for the parser package.'])).code,
      ).toBe(0);
      const replay = server.requests.slice(mark).filter(isMain);
      expect(replay.length).toBeGreaterThan(0);
      expect(injected(replay[0]!)).toEqual(bytes);

      // Replay from scratch (a fresh run of session 3's message): the same bytes again.
      mark = server.requests.length;
      replies.push({ text: 'Running them.' });
      expect((await agent(['Run the go tests for the ingest batch writer package.'])).code).toBe(0);
      expect(server.requests.slice(mark).filter(isMain).flatMap(injected)).toEqual(bytes);
    } finally {
      await server.close();
    }
  });
});

describe('openMemory facade with a model', () => {
  it('compact() right after afterTurn() waits for the notes that turn queued and compacts with them', async () => {
    const cwd = join(root, 'facade-model');
    mkdirSync(cwd, { recursive: true });
    const notesPath = join(env.ENGRAM_HOME!, 'session-memory', 'facade-s1', 'notes.md');
    const route = (r: RecordedRequest): ScriptStep => {
      const messages = r.body.messages as Array<{ role: string; content: unknown }>;
      const last = JSON.stringify(messages.at(-1)?.content ?? '');
      if (last.includes('tool_result')) return { text: 'done' };
      if (!r.rawBody.includes(notesPath)) return { text: 'Nothing to save.' };
      const tools = (r.body.tools ?? []) as Array<{ name: string }>;
      const write = tools.find((t) => /write/i.test(t.name))!.name;
      const content = readFileSync(notesPath, 'utf8').replace(
        /(^#\s+Current State\n_.*_\n)/m,
        '$1Canary rollout of billing is half done.\n',
      );
      return { toolUse: [{ name: write, input: { path: notesPath, content } }] };
    };
    const server = await startScriptedModelServer({ fallback: null });
    server.push(...Array.from({ length: 30 }, () => route));
    const { scriptedModel } = await import('engram/test');
    const memory = await openMemory({
      cwd,
      env: { ...env },
      homedir: env.HOME!,
      model: scriptedModel(server),
      sessionId: 'facade-s1',
      modelRecall: false,
    });
    try {
      const history: Message[] = [
        {
          id: 'u0',
          role: 'user',
          content: [{ type: 'text', text: 'Roll billing out through canary.' }],
        },
      ];
      for (let i = 0; i < 6; i++) {
        history.push(
          {
            id: `a${i}`,
            role: 'assistant',
            content: [
              {
                type: 'text',
                text: `Step ${i}: ${'kubectl rollout status deploy/billing -n billing-canary '.repeat(150)}`,
              },
            ],
          },
          { id: `u${i + 1}`, role: 'user', content: [{ type: 'text', text: `ok ${i}` }] },
        );
      }
      history.push({
        id: 'a-last',
        role: 'assistant',
        content: [{ type: 'text', text: 'Canary is healthy.' }],
      });
      memory.afterTurn(history);
      const compacted = await memory.compact(history);
      expect(compacted.method).toBe('notes');
      expect(JSON.stringify(compacted.messages[0])).toContain(
        'Canary rollout of billing is half done.',
      );
    } finally {
      await memory.close({ timeoutMs: 5_000 });
      await server.close();
    }
  });
});
