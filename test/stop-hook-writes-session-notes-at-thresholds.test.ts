/**
 * A Claude Code session driven only through the hooks keeps session notes as it goes: the Stop
 * hook (detached, as Claude Code runs it) updates them by their thresholds, when the context first
 * passes 10,000 tokens and again once it has grown another 5,000, with tool calls in between; no
 * PreCompact is needed. The model is a scripted server on loopback.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RecordedRequest, startScriptedModelServer } from 'engram/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, requireBuild, tempRoot } from './support/cli-process.js';
import { CcTranscript, prose } from './support/transcripts.js';

const temp = await tempRoot('engram-stop-notes-');
afterAll(() => temp.cleanup());
beforeAll(() => requireBuild());

const SID = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

function runHook(event: string, input: unknown, env: NodeJS.ProcessEnv, cwd: string) {
  return import('node:child_process').then(
    ({ execFile }) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        const child = execFile(
          process.execPath,
          [CLI, 'hook', event],
          { env, cwd },
          (error, stdout, stderr) =>
            done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
        child.stdin?.end(JSON.stringify(input));
      }),
  );
}

/** The file-writing tool the notes updater was offered (engram's own `write`). */
function writeToolOf(request: RecordedRequest): string {
  const tools = (request.body.tools ?? []) as Array<{
    name: string;
    input_schema?: { properties?: Record<string, unknown> };
  }>;
  const tool = tools.find((t) => /write/i.test(t.name) && t.input_schema?.properties?.content);
  if (!tool) throw new Error(`no write tool offered: ${tools.map((t) => t.name).join(', ')}`);
  return tool.name;
}

describe('session notes through the Stop hook', () => {
  it('a hooks-only session gets notes at 10,000 and again past 15,000 context tokens, before any PreCompact', {
    timeout: 300_000,
  }, async () => {
    const root = await temp.fresh('session');
    const home = join(root, 'home');
    const project = join(root, 'ledger');
    await mkdir(home, { recursive: true });
    await mkdir(project, { recursive: true });
    const notesPath = join(home, '.engram', 'session-memory', SID, 'notes.md');
    const statePath = join(home, '.engram', 'session-memory', SID, 'state.json');
    let notesUpdates = 0;
    let extractionCalls = 0;
    // One router for every model call the detached Stop runs make: the notes updater (its request
    // names the notes file) writes a marker into Current State; extraction finds nothing to save.
    const route = (request: RecordedRequest) => {
      const last = request.body.messages?.at(-1);
      const answered =
        Array.isArray(last?.content) &&
        last.content.some((b: { type: string }) => b.type === 'tool_result');
      if (!request.rawBody.includes(notesPath)) {
        extractionCalls++;
        return { text: 'Nothing worth saving.' };
      }
      if (answered) return { text: 'done' };
      notesUpdates++;
      const notes = readFileSync(notesPath, 'utf8').replace(
        /(^#\s+Current State\n_.*_\n)/m,
        `$1Notes update ${notesUpdates}: reconciling the March ledger batch by batch.\n`,
      );
      return {
        toolUse: [{ name: writeToolOf(request), input: { path: notesPath, content: notes } }],
      };
    };
    const server = await startScriptedModelServer({ fallback: null });
    server.push(...Array.from({ length: 80 }, () => route));
    try {
      const env = cliEnv(home, {
        ANTHROPIC_API_KEY: 'stop-notes-key',
        ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        ENGRAM_MODEL: 'anthropic:scripted-notes-model',
      });
      const transcriptPath = join(root, `${SID}.jsonl`);
      const t = new CcTranscript(SID, project);
      const log = join(home, '.engram', 'hooks', 'stop.log');
      const notesLines = () =>
        existsSync(log)
          ? readFileSync(log, 'utf8')
              .split('\n')
              .filter((l) => l.startsWith('engram: session notes '))
          : [];
      const state = () =>
        existsSync(statePath)
          ? (JSON.parse(readFileSync(statePath, 'utf8')) as {
              tokensAtLastUpdate?: number;
              updates?: number;
            })
          : {};

      t.user('The March ledger is off by 41.07 EUR; find the posting that breaks reconciliation.');
      const history: Array<{ stop: number; updates: number; tokens: number | undefined }> = [];
      // Each turn: two tool calls with ~1,300 tokens of output each, then a short answer.
      for (let turn = 0; turn < 7; turn++) {
        for (let call = 0; call < 2; call++) {
          const id = `toolu_01S${turn}c${call}`;
          t.reply(
            { text: `Checking posting batch ${turn}.${call}.` },
            {
              toolUse: {
                id,
                name: 'Bash',
                input: { command: `ledger-cli batch show ${turn}${call}` },
              },
            },
          ).noise();
          t.result(id, prose(1_300, `batch${turn}x${call}`));
        }
        t.reply({ text: `Batch ${turn} balances.` });
        await writeFile(transcriptPath, t.toJsonl());
        const stop = await runHook(
          'stop',
          {
            session_id: SID,
            transcript_path: transcriptPath,
            cwd: project,
            permission_mode: 'default',
            hook_event_name: 'Stop',
            stop_hook_active: false,
            last_assistant_message: `Batch ${turn} balances.`,
          },
          env,
          project,
        );
        expect(stop.code, stop.stderr).toBe(0);
        expect(JSON.parse(stop.stdout)).toEqual({});
        // The Stop hook returned at once; its detached run logs one notes line when done.
        for (let i = 0; i < 600 && notesLines().length < turn + 1; i++)
          await new Promise((r) => setTimeout(r, 100));
        expect(notesLines(), readFileSync(log, 'utf8')).toHaveLength(turn + 1);
        history.push({
          stop: turn,
          updates: state().updates ?? 0,
          tokens: state().tokensAtLastUpdate,
        });
        t.user(`keep going after batch ${turn}`);
      }

      const lines = notesLines();
      // Before 10,000 tokens the Stop hook says why it waits; then it writes, then waits for growth.
      expect(lines[0]).toMatch(
        /session notes skipped: context is \d+ tokens, notes start at 10000/,
      );
      const firstUpdate = history.findIndex((h) => h.updates === 1);
      const secondUpdate = history.findIndex((h) => h.updates === 2);
      expect(firstUpdate).toBeGreaterThan(0);
      expect(secondUpdate).toBeGreaterThan(firstUpdate);
      const first = history[firstUpdate]!.tokens!;
      const second = history[secondUpdate]!.tokens!;
      // The first update came at the first Stop past 10,000 tokens (each turn adds ~2,700).
      expect(first).toBeGreaterThanOrEqual(10_000);
      expect(first).toBeLessThan(13_000);
      expect(lines[firstUpdate]).toMatch(/^engram: session notes updated/);
      // The second came once the context had grown 5,000 more, past 15,000.
      expect(second).toBeGreaterThanOrEqual(15_000);
      expect(second - first).toBeGreaterThanOrEqual(5_000);
      expect(lines[secondUpdate]).toMatch(/^engram: session notes updated/);
      for (const [i, line] of lines.entries()) {
        if (i !== firstUpdate && i !== secondUpdate && i < secondUpdate)
          expect(line).toMatch(/session notes skipped/);
      }
      // The notes hold what the updater wrote, in the template's structure.
      const notes = readFileSync(notesPath, 'utf8');
      expect(notes).toMatch(/^# Current State$/m);
      expect(notes).toContain('Notes update 2: reconciling the March ledger');
      expect(notesUpdates).toBeGreaterThanOrEqual(2);
      // Extraction ran at every Stop as well, over what was new.
      expect(extractionCalls).toBeGreaterThanOrEqual(history.length);
      // No PreCompact was ever sent: every notes request came from a Stop.
      expect(existsSync(join(home, '.engram', 'session-memory', SID, 'update-running.json'))).toBe(
        false,
      );
    } finally {
      await server.close();
    }
  });
});
