import { startScriptedModelServer } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { cli, kitchen, memory, recallJson, sandbox } from './support.js';

describe('zero is a normal answer', () => {
  it('an unrelated query selects nothing with the offline ranker', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const out = await recallJson(
      [
        'what year did the Byzantine empire fall to the Ottomans',
        '--dir',
        s.dir,
        '--model',
        'offline',
      ],
      s.env,
    );
    expect(out.selected).toEqual([]);
    expect(out.injection).toBe('');
    expect(out.shape.selected).toBe(0);
    expect(out.shape.candidates).toBe(3);
    // Everyday words shared with a memory ("need", "keep") are no reason to recall it.
    memory(s.dir, 'seedlings.md', {
      description: 'Tomato seedlings need hardening off for a week',
    });
    const chat = await recallJson(
      [
        'I need to know what you think about this, keep going',
        '--dir',
        s.dir,
        '--model',
        'offline',
      ],
      s.env,
    );
    expect(chat.selected).toEqual([]);
  });

  it('an unrelated query selects nothing when the scripted model answers []', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const server = await startScriptedModelServer({ steps: [{ text: '[]' }] });
    try {
      const env = {
        ...s.env,
        ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        ANTHROPIC_API_KEY: 'sk-test',
      };
      const out = await recallJson(
        ['who painted the ceiling of the Sistine chapel', '--dir', s.dir, '--model', 'auto'],
        env,
      );
      expect(out.selected).toEqual([]);
      expect(out.injection).toBe('');
      expect(out.shape.selector).toBe('model');
      expect(out.shape.fallback).toBe(false);
      expect(server.requests).toHaveLength(1);
      // The manifest: `- [type] file (ISO time): description`.
      expect(server.requests[0]!.rawBody).toMatch(
        /- \[user\] oven-calibration\.md \(\d{4}-\d\d-\d\dT[\d:.]+Z\): The oven runs 15 degrees hot/,
      );
    } finally {
      await server.close();
    }
  });

  it('the offline mode never calls the model; a failing model falls back and says so', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const server = await startScriptedModelServer({
      steps: [{ error: { status: 400, message: 'bad' } }],
    });
    try {
      const env = {
        ...s.env,
        ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        ANTHROPIC_API_KEY: 'sk-test',
      };
      const off = await recallJson(
        ['how hot should the oven be for bread', '--dir', s.dir, '--model', 'offline'],
        env,
      );
      expect(server.requests).toHaveLength(0);
      expect(off.selected.map((m: { file: string }) => m.file)).toEqual(['oven-calibration.md']);
      const run = await cli(
        ['recall', 'how hot should the oven be for bread', '--dir', s.dir, '--json'],
        env,
      );
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout);
      expect(out.shape.fallback).toBe(true);
      expect(out.shape.fallbackUsed).toBe(true);
      expect(out.selected.map((m: { file: string }) => m.file)).toEqual(['oven-calibration.md']);
      expect(run.stderr).toMatch(/offline/);
    } finally {
      await server.close();
    }
  });

  it('a one-word prompt skips recall', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const out = await recallJson(['oven', '--dir', s.dir, '--model', 'offline'], s.env);
    expect(out.selected).toEqual([]);
    expect(out.shape.skipped).toBe('single_word');
  });
});
