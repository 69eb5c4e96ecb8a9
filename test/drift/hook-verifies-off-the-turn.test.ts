import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli-process.js';
import { requireBuild, workspace } from './support.js';

beforeAll(requireBuild);

function hook(
  input: object,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  event = 'user-prompt-submit',
) {
  return new Promise<string>((done, fail) => {
    const child = execFile(
      process.execPath,
      [CLI, 'hook', event, ...args],
      { env, cwd },
      (error, stdout) => (error ? fail(error) : done(stdout)),
    );
    child.stdin!.end(JSON.stringify(input));
  });
}

describe('claim verification in the prompt hook', () => {
  it('answers from the cache only, and a detached refresh lets the next turn carry the mark', async () => {
    const ws = workspace({ 'src/renderer.ts': 'export function renderBlit() {}\n' });
    ws.memory(
      'sprite-blit.md',
      {
        name: 'sprite blit',
        description: 'where the sprite blit lives in the renderer',
        type: 'project',
      },
      'The sprite blit is at `src/render.ts:142`, in `renderBlit()`.\n**Why:** profiling.',
    );
    await ws.engram(['index', '--rebuild']);
    const input = {
      hook_event_name: 'UserPromptSubmit',
      session_id: 'drift-hook-1',
      cwd: ws.project,
      prompt: 'where does the sprite blit live in the renderer?',
    };
    const args = ['--dir', ws.dir, '--no-model'];
    const first = JSON.parse(await hook(input, args, ws.env, ws.project));
    const context1 = first.hookSpecificOutput.additionalContext as string;
    expect(context1).toContain('sprite-blit.md');
    expect(context1).not.toContain('no longer exists'); // nothing cached yet: the turn did not wait

    // The hook started `engram verify` in the background; it writes the cache when done.
    const cache = join(ws.dir, '.engram/claim-checks.json');
    for (let i = 0; i < 300 && !existsSync(cache); i++) await sleep(100);
    expect(existsSync(cache)).toBe(true);

    // The very next turn answers from that cache: the hook reads it and the project's quick key
    // as it prepares the round, so the verdict is there at selection time though it waits for none.
    const second = JSON.parse(
      await hook({ ...input, session_id: 'drift-hook-2' }, args, ws.env, ws.project),
    );
    const context2 = second.hookSpecificOutput.additionalContext as string;
    expect(context2).toContain('`src/render.ts` no longer exists (cited at line 142)');
  }, 60_000);

  it('checks every memory again at the end of a turn once the tree moved, so the next prompt is marked', async () => {
    const ws = workspace({ 'src/render.ts': 'export function renderBlit() {}\n' });
    ws.memory(
      'sprite-blit.md',
      {
        name: 'sprite blit',
        description: 'where the sprite blit lives in the renderer',
        type: 'project',
      },
      'The sprite blit is in `src/render.ts`, in `renderBlit()`.\n**Why:** profiling.',
    );
    await ws.engram(['index', '--rebuild']);
    ws.git('mv', 'src/render.ts', 'src/renderer.ts'); // the agent's turn moved the file
    const marker = join(ws.dir, '.engram/claim-refresh.json');
    const stop = { hook_event_name: 'Stop', session_id: 'drift-stop-1', cwd: ws.project };
    await hook(stop, ['--dir', ws.dir, '--no-model'], ws.env, ws.project, 'stop');
    for (let i = 0; i < 300 && !existsSync(marker); i++) await sleep(100);
    expect(existsSync(marker)).toBe(true);
    const prompt = {
      hook_event_name: 'UserPromptSubmit',
      session_id: 'drift-stop-2',
      cwd: ws.project,
      prompt: 'where does the sprite blit live in the renderer?',
    };
    const out = JSON.parse(await hook(prompt, ['--dir', ws.dir, '--no-model'], ws.env, ws.project));
    expect(out.hookSpecificOutput.additionalContext).toContain('`src/render.ts` no longer exists');
  }, 60_000);
});
