import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExtractor, type ExtractionRun } from 'engram/extract';
import { scriptedModel, startScriptedModelServer } from 'engram/test';
import { afterEach, describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../../src/cli/test-io.js';
import { claudeTranscript, ctx, fresh, startServer, turn } from './support.js';

/** Every reply asks for another tool call: each run hits the 5-turn cap. */
const ALWAYS_A_TOOL = { fallback: { toolUse: [{ name: 'list', input: { path: '.' } }] } };

describe('an extraction that keeps hitting max_turns backs off', () => {
  it('in a long-running host: 5 calls once, none for the same messages, retried on a new turn', async () => {
    const server = await startServer(ALWAYS_A_TOOL);
    const runs: ExtractionRun[] = [];
    const ex = createExtractor({
      memoryDir: await fresh('mem'),
      model: scriptedModel(server),
      onRun: (r) => runs.push(r),
    });
    const first = turn(1, 'heron listens on port 9464.');
    ex.onTurnEnd(ctx(first));
    await ex.drain();
    expect(server.requests).toHaveLength(5);
    expect(runs.at(-1)?.reason).toBe('max_turns');
    // The same messages again: not repeated, and said once.
    const again = await ex.extractNow(ctx(first));
    expect(again.reason).toBe('backed_off');
    expect(again.warnings.join(' ')).toMatch(/not repeated until a new turn/);
    const third = await ex.extractNow(ctx(first));
    expect(third.reason).toBe('backed_off');
    expect(third.warnings).toEqual([]);
    expect(server.requests).toHaveLength(5);
    // A new turn is a new signal: one more try.
    ex.onTurnEnd(ctx([...first, ...turn(2, 'and it logs to journald.')]));
    await ex.drain();
    expect(server.requests).toHaveLength(10);
  }, 60_000);
});

describe('the Stop hook backs off the same way across hook processes', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('5 model calls on the first stop, none on the next stops until the transcript grows', async () => {
    const server = await startScriptedModelServer(ALWAYS_A_TOOL);
    try {
      root = await mkdtemp(join(tmpdir(), 'engram-backoff-'));
      const project = join(root, 'heron');
      const memoryDir = join(root, 'memory');
      await mkdir(project, { recursive: true });
      const transcriptPath = join(root, 's-heron.jsonl');
      await writeFile(transcriptPath, claudeTranscript(project));
      const stop = async () => {
        const io = testIo({
          stdin: JSON.stringify({
            session_id: 's-heron',
            transcript_path: transcriptPath,
            cwd: project,
            hook_event_name: 'Stop',
            stop_hook_active: false,
          }),
          cwd: project,
          homedir: root!,
        });
        io.env = {
          ...io.env,
          ENGRAM_MODEL: 'anthropic:scripted-model',
          ANTHROPIC_API_KEY: 'test-key',
          ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        };
        return runCaptured(['hook', 'stop', '--wait', '--dir', memoryDir], io);
      };
      const first = await stop();
      expect(first.stderr).toMatch(/extraction failed \(max_turns\)/);
      expect(server.requests).toHaveLength(5);
      const second = await stop();
      expect(server.requests).toHaveLength(5);
      expect(second.stderr).toMatch(/not repeated until a new turn arrives/);
      const third = await stop();
      expect(server.requests).toHaveLength(5);
      expect(third.stderr).not.toMatch(/not repeated until/);
      // The session goes on: a new turn in the transcript brings one more try.
      const line = (type: string, uuid: string, parentUuid: string, content: unknown) =>
        `${JSON.stringify({ type, uuid, parentUuid, isSidechain: false, userType: 'external', version: '2.1.39', sessionId: 's-heron', cwd: project, timestamp: '2026-11-20T09:02:00.000Z', message: type === 'user' ? { role: 'user', content } : { id: `m-${uuid}`, type: 'message', role: 'assistant', model: 'x', content, stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } } })}\n`;
      await appendFile(
        transcriptPath,
        line(
          'user',
          '55555555-5555-4555-8555-555555555555',
          '44444444-4444-4444-8444-444444444444',
          'Also: heron logs to journald.',
        ) +
          line(
            'assistant',
            '66666666-6666-4666-8666-666666666666',
            '55555555-5555-4555-8555-555555555555',
            [{ type: 'text', text: 'Noted.' }],
          ),
      );
      const fourth = await stop();
      expect(fourth.stderr).toMatch(/extraction failed \(max_turns\)/);
      expect(server.requests).toHaveLength(10);
    } finally {
      await server.close();
    }
  }, 90_000);
});
