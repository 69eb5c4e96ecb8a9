import { type Message, recall } from 'engram';
import { MAX_MEMORIES_PER_TURN } from 'engram/inject';
import { startScriptedModelServer } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { cli, kitchen, memory, recallJson, sandbox, userText } from './support.js';

describe('candidates and the per-turn cap', () => {
  it('the 6th relevant memory is not injected (offline and model)', async () => {
    const s = sandbox();
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x) => `watering-${x}.md`);
    for (const [i, f] of files.entries())
      memory(s.dir, f, {
        description: `Watering schedule for the balcony tomato plants, bed ${i}`,
      });
    const off = await recallJson(
      ['what is the watering schedule for the tomato plants', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(off.selected).toHaveLength(MAX_MEMORIES_PER_TURN);
    expect(MAX_MEMORIES_PER_TURN).toBe(5);
    expect(off.injection.match(/<memory /g)).toHaveLength(5);

    const server = await startScriptedModelServer({
      steps: [{ text: JSON.stringify(['invented.md', ...files]) }],
    });
    try {
      const env = { ...s.env, ANTHROPIC_BASE_URL: server.anthropicBaseURL, ANTHROPIC_API_KEY: 'k' };
      const out = await recallJson(['tomato watering schedule please', '--dir', s.dir], env);
      expect(out.selected.map((m: { file: string }) => m.file)).toEqual(files.slice(0, 5));
    } finally {
      await server.close();
    }
  });

  it('--surfaced removes a memory before selection; --tools reaches the selector', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const out = await recallJson(
      [
        'oven temperature for bread',
        '--dir',
        s.dir,
        '--model',
        'offline',
        '--surfaced',
        'oven-calibration.md,pantry-inventory.md',
      ],
      s.env,
    );
    expect(out.selected).toEqual([]);
    expect(out.shape.candidates).toBe(1);

    const server = await startScriptedModelServer({ steps: [{ text: '["knife-sharpening.md"]' }] });
    try {
      const env = { ...s.env, ANTHROPIC_BASE_URL: server.anthropicBaseURL, ANTHROPIC_API_KEY: 'k' };
      const picked = await recallJson(
        [
          'sharpen the knife today',
          '--dir',
          s.dir,
          '--tools',
          'Read,Grep',
          '--surfaced',
          './oven-calibration.md',
        ],
        env,
      );
      expect(picked.selected.map((m: { file: string }) => m.file)).toEqual(['knife-sharpening.md']);
      const body = server.requests[0]!.rawBody;
      expect(body).toContain('Read');
      expect(body).toContain('Grep');
      // Surfaced memories never reach the selector's manifest (no slot spent on them).
      expect(body).toContain('pantry-inventory.md');
      expect(body).not.toContain('oven-calibration.md');
    } finally {
      await server.close();
    }
  });

  it('surfaced comes from the history: excluded two turns later, eligible again after compaction', async () => {
    const s = sandbox();
    kitchen(s.dir);
    memory(s.dir, 'bread-hydration.md', {
      description: 'Bread dough hydration for the rye loaf is 72 percent',
    });
    const q = 'bake the rye bread loaf in the oven';
    const first = await recall({ dir: s.dir, query: q, messages: [] });
    const firstFiles = first.selected.map((m) => m.file);
    expect(firstFiles).toContain('oven-calibration.md');
    const history: Message[] = [
      userText('u1', q),
      userText('r1', first.text),
      { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Baked.' }] },
      userText('u2', 'now slice the rye bread'),
      { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'Sliced.' }] },
    ];
    const third = await recall({ dir: s.dir, query: q, messages: history });
    expect(third.shape.surfacedExcluded).toBe(firstFiles.length);
    expect(third.shape.candidates).toBe(4 - firstFiles.length);
    for (const f of firstFiles) expect(third.selected.map((m) => m.file)).not.toContain(f);
    // A compaction replaced the early turns (and their injection) with a summary.
    const compacted: Message[] = [userText('sum', 'Summary: we baked and sliced a rye loaf.')];
    const after = await recall({ dir: s.dir, query: q, messages: compacted });
    expect(after.shape.surfacedExcluded).toBe(0);
    expect(after.selected.map((m) => m.file)).toEqual(firstFiles);
  });

  it('beyond 200 memories the ranker prefilters to 200 and says so', async () => {
    const s = sandbox();
    for (let i = 0; i < 230; i++)
      memory(s.dir, `note-${String(i).padStart(3, '0')}.md`, {
        description: `Errand number ${i} about the ${i % 2 ? 'bicycle' : 'passport'} renewal`,
      });
    const run = await cli(
      ['recall', 'renew the passport', '--dir', s.dir, '--model', 'offline', '--json'],
      s.env,
    );
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.shape.total).toBe(230);
    expect(out.shape.candidates).toBe(200);
    expect(out.shape.prefiltered).toBe(true);
    expect(run.stderr).toMatch(/230/);
  });
});
