import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedModelServer } from 'engram/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { CcTranscript } from '../support/transcripts.js';
import { env, root, run } from './support.js';

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
      // Nothing but, at most, a notice an earlier hook of this session queued (one line).
      const { systemMessage, ...rest } = JSON.parse(stop.stdout);
      expect(rest).toEqual({});
      if (systemMessage !== undefined) expect(systemMessage).toMatch(/^engram: [^\n]+$/);
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
