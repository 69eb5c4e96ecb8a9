import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { parseClaudeCodeTranscript } from 'engram/llm';
import { createMemoryToolHandlers } from 'engram/memory-tool';
import { beforeAll, describe, expect, it } from 'vitest';
import { CcTranscript } from '../support/transcripts.js';
import { KUBE_MEMORY, root } from './support.js';

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
