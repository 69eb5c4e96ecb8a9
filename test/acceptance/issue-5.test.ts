/**
 * Acceptance for issue 5 (the read path), written from the issue text alone: the built CLI as a
 * child process with a fresh HOME, and the published library entry points. New data throughout
 * (kitchen, garden, travel, CJK household notes), not the layer's own fixtures.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAnthropicModel, type Message, recall, renderInjection, startRecall } from 'engram';
import {
  MAX_MEMORIES_PER_TURN,
  MAX_MEMORY_BYTES,
  MAX_MEMORY_LINES,
  MAX_SESSION_BYTES,
} from 'engram/inject';
import { startScriptedModelServer } from 'engram/test';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'cli', 'main.js');
const DAY = 86_400_000;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
});

interface Sandbox {
  root: string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'engram-acc5-'));
  const dir = join(root, 'mem');
  mkdirSync(dir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ENGRAM_HOME: join(root, 'home', '.engram'),
    ENGRAM_MANAGED_DIR: join(root, 'managed'),
  };
  return { root, dir, env };
}

function memory(
  dir: string,
  file: string,
  m: { description: string; type?: string; body?: string; ageDays?: number; nowMs?: number },
): string {
  const path = join(dir, file);
  const text = `---\nname: ${file.replace(/\.md$/, '')}\ndescription: ${m.description}\ntype: ${m.type ?? 'project'}\n---\n${m.body ?? `${m.description}.`}\n`;
  writeFileSync(path, text);
  if (m.ageDays !== undefined) {
    const t = ((m.nowMs ?? Date.now()) - m.ageDays * DAY) / 1000;
    utimesSync(path, t, t);
  }
  return path;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile('node', [BIN, ...args], { env, maxBuffer: 8 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON is inspected freely, as an outsider would.
async function recallJson(args: string[], env: NodeJS.ProcessEnv): Promise<any> {
  const run = await cli(['recall', ...args, '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

function kitchen(dir: string): void {
  memory(dir, 'oven-calibration.md', {
    description: 'The oven runs 15 degrees hot, so bake bread at 215 instead of 230',
    type: 'user',
  });
  memory(dir, 'knife-sharpening.md', {
    description: 'Sharpen the chef knife on the 1000 grit whetstone every second Sunday',
    type: 'feedback',
  });
  memory(dir, 'pantry-inventory.md', {
    description: 'Pantry inventory spreadsheet lives in the shared drive under Household',
    type: 'reference',
  });
}

function userText(id: string, text: string): Message {
  return { id, role: 'user', content: [{ type: 'text', text }] };
}

describe('issue 5: zero is a normal answer', () => {
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

describe('issue 5: candidates and the per-turn cap', () => {
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

describe('issue 5: budgets', () => {
  it('a 50 KB memory injects at most 4,096 bytes ending at a newline, plus the note', async () => {
    const s = sandbox();
    const lines = Array.from(
      { length: 1000 },
      (_, i) => `Step ${i}: fold the croissant dough, rest it ${i % 7} minutes`,
    );
    const body = `${lines.join('\n')}\n`;
    const path = memory(s.dir, 'croissant-lamination.md', {
      description: 'Croissant dough lamination steps and resting times',
      body,
    });
    const full = readFileSync(path, 'utf8');
    expect(Buffer.byteLength(full)).toBeGreaterThan(50_000);
    const out = await recallJson(
      ['how do I laminate croissant dough', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(out.selected).toHaveLength(1);
    const m = out.selected[0];
    expect(m.truncated).toBe(true);
    expect(m.bytes).toBeLessThanOrEqual(MAX_MEMORY_BYTES);
    const start = out.injection.indexOf('---\nname: croissant-lamination');
    const kept = out.injection.slice(start, start + m.bytes);
    expect(full.startsWith(kept)).toBe(true);
    expect(kept.endsWith('\n')).toBe(true);
    const rest = out.injection.slice(start + m.bytes);
    // The note names the full file, right after the kept prefix.
    const note = rest.slice(0, rest.indexOf('\n') + 1);
    expect(note).toContain(path);
    expect(rest.slice(note.length)).toMatch(/^<\/memory>\n/);
  });

  it('a memory of many short lines is cut at 200 lines', async () => {
    const s = sandbox();
    const body = Array.from({ length: 400 }, (_, i) => `${i}`).join('\n');
    memory(s.dir, 'seed-list.md', { description: 'Seed packet list for the spring garden', body });
    const out = await recallJson(
      ['which seed packets for the spring garden', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(out.selected[0].truncated).toBe(true);
    const start = out.injection.indexOf('---\nname: seed-list');
    const kept: string = out.injection.slice(start, start + out.selected[0].bytes);
    expect(kept.split('\n').length - 1).toBeLessThanOrEqual(MAX_MEMORY_LINES);
    expect(kept.endsWith('\n')).toBe(true);
  });

  it('the 60 KiB session cap stops further injections, says so once, and holds', async () => {
    const s = sandbox();
    const filler = `${'Pack the tent pegs and the rain fly before the hike. '.repeat(70)}\n`;
    for (let i = 0; i < 40; i++)
      memory(s.dir, `hike-${String(i).padStart(2, '0')}.md`, {
        description: `Hiking trip packing list for the mountain hike, part ${i}`,
        body: filler.repeat(2),
      });
    const messages: Message[] = [];
    const cumulative: number[] = [];
    let notices = 0;
    let stoppedAt = -1;
    for (let turn = 0; turn < 8; turn++) {
      const r = await recall({ dir: s.dir, query: 'packing list for the mountain hike', messages });
      cumulative.push(r.shape.sessionCumulativeBytes);
      expect(r.shape.sessionCumulativeBytes).toBeLessThanOrEqual(MAX_SESSION_BYTES);
      if (r.text.includes('<recall-stopped>')) notices++;
      if (r.shape.budgetExhausted && stoppedAt < 0) stoppedAt = turn;
      if (stoppedAt >= 0 && turn > stoppedAt) {
        expect(r.selected).toEqual([]);
        expect(r.text).toBe('');
      }
      messages.push(userText(`u${turn}`, 'packing list for the mountain hike'));
      if (r.text) messages.push(userText(`r${turn}`, r.text));
      messages.push({ id: `a${turn}`, role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    }
    expect(MAX_SESSION_BYTES).toBe(61_440);
    expect(stoppedAt).toBeGreaterThan(0);
    expect(notices).toBe(1);
    expect(Math.max(...cumulative)).toBeGreaterThan(
      MAX_SESSION_BYTES - 5 * (MAX_MEMORY_BYTES + 1024),
    );
  });
});

describe('issue 5: frozen headers', () => {
  it('re-rendering an injected conversation two days later gives identical bytes', async () => {
    const s = sandbox();
    const t0 = Date.parse('2031-04-10T09:00:00Z');
    memory(s.dir, 'visa-photo.md', {
      description: 'Visa photo must be 35x45 mm with a white background',
      ageDays: 0,
      nowMs: t0,
    });
    memory(s.dir, 'visa-fees.md', {
      description: 'Visa application fee is paid by card at the consulate',
      ageDays: 5,
      nowMs: t0,
    });
    const q = 'prepare the visa application photo and fee';
    const first = await recall({ dir: s.dir, query: q, now: t0 });
    expect(first.selected).toHaveLength(2);
    const fresh = first.selected.find((m) => m.file === 'visa-photo.md')!;
    const old = first.selected.find((m) => m.file === 'visa-fees.md')!;
    expect(fresh.header).toContain('saved today');
    expect(old.header).toContain('5 days old');
    expect(old.header).toMatch(/Memory: .*visa-fees\.md:$/);
    const conversation: Message[] = [userText('u1', q), userText('r1', first.text)];
    const stored = JSON.parse(JSON.stringify(first.injection));
    // Two days later: the stored turn renders to the same bytes; the next turn adds nothing new.
    const later = await recall({ dir: s.dir, query: q, now: t0 + 2 * DAY, messages: conversation });
    expect(renderInjection(stored)).toBe(first.text);
    expect(later.selected).toEqual([]);
    expect(later.shape.surfacedExcluded).toBe(2);

    // The CLI with --now: the same time gives the same bytes; two days later the headers move.
    const at = new Date(t0).toISOString();
    const a = await recallJson([q, '--dir', s.dir, '--model', 'offline', '--now', at], s.env);
    const b = await recallJson([q, '--dir', s.dir, '--model', 'offline', '--now', at], s.env);
    expect(a.injection).toBe(b.injection);
    expect(a.injection).toBe(first.text);
    const c = await recallJson(
      [q, '--dir', s.dir, '--model', 'offline', '--now', new Date(t0 + 2 * DAY).toISOString()],
      s.env,
    );
    expect(c.selected.find((m: { file: string }) => m.file === 'visa-fees.md').header).toContain(
      '7 days old',
    );
    expect(a.injection.startsWith('<system-reminder>')).toBe(true);
    expect(a.injection.endsWith('</system-reminder>')).toBe(true);
  });
});

describe('issue 5: prefetch', () => {
  it('a 2-second selector does not slow a simulated agent loop; memories arrive later', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const server = await startScriptedModelServer({
      steps: [{ text: '["knife-sharpening.md"]', delayMs: 2000 }],
    });
    try {
      const model = createAnthropicModel({
        apiKey: 'k',
        baseURL: server.anthropicBaseURL,
        model: 'claude-haiku-4-5',
      });
      const handle = startRecall({ dir: s.dir, query: 'sharpen the chef knife', model });
      const step = 250;
      const pollTimes: number[] = [];
      let arrivedAt = -1;
      let got: Awaited<ReturnType<typeof recall>> | undefined;
      const loopStart = performance.now();
      // Iterate until the memories have arrived (at most 40 iterations, 10 s), then one more.
      let iterations = 0;
      for (let i = 0; i < 40 && (arrivedAt < 0 || i <= arrivedAt + 1); i++) {
        iterations++;
        const p0 = performance.now();
        const r = handle.poll();
        pollTimes.push(performance.now() - p0);
        if (r && arrivedAt < 0) {
          arrivedAt = i;
          got = r;
        } else {
          expect(r).toBeUndefined();
        }
        await new Promise((res) => setTimeout(res, step)); // the model/tool work of one iteration
      }
      const loopMs = performance.now() - loopStart;
      handle.dispose();
      // poll() never waits, so the loop costs its own work and nothing more.
      expect(Math.max(...pollTimes)).toBeLessThan(20);
      expect(loopMs).toBeLessThan(iterations * step + 1500);
      expect(arrivedAt).toBeGreaterThanOrEqual(4); // not before the selector's 2 s
      expect(got!.selected.map((m) => m.file)).toEqual(['knife-sharpening.md']);
      expect(handle.poll()).toBeUndefined(); // consumed once
      expect(server.requests).toHaveLength(1); // once per user turn
    } finally {
      await server.close();
    }
  });

  it('a turn that ends first gets no memories and disposing does not throw', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const server = await startScriptedModelServer({
      steps: [{ text: '["knife-sharpening.md"]', delayMs: 2000 }],
    });
    try {
      const model = createAnthropicModel({
        apiKey: 'k',
        baseURL: server.anthropicBaseURL,
        model: 'm',
      });
      const handle = startRecall({ dir: s.dir, query: 'sharpen the chef knife', model });
      const t0 = performance.now();
      for (let i = 0; i < 3; i++) {
        expect(handle.poll()).toBeUndefined();
        await new Promise((res) => setTimeout(res, 50));
      }
      handle.dispose();
      expect(performance.now() - t0).toBeLessThan(1500);
      await handle.done;
      expect(handle.poll()).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('issue 5: CJK, metrics and stats', () => {
  it('a CJK query selects the right CJK memory', async () => {
    const s = sandbox();
    memory(s.dir, 'zoo.md', {
      description: '周末带孩子去动物园需要提前在网上预约门票',
      type: 'user',
    });
    memory(s.dir, 'dentist.md', { description: '牙医诊所每周三下午休息，不接受预约' });
    memory(s.dir, 'rent.md', { description: '房租每月五号之前通过银行转账支付给房东' });
    memory(s.dir, 'car.md', { description: '我的车是白色的丰田，明年需要年检' });
    memory(s.dir, 'train.md', { description: '新幹線の切符は駅の券売機で前日に買っておく' });
    const zoo = await recallJson(
      ['这个周末去动物园要预约门票吗？', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    // The dentist note shares 预约 (booking) with the query: a lexical ranker may list it second.
    expect(zoo.selected.map((m: { file: string }) => m.file)[0]).toBe('zoo.md');
    const rent = await recallJson(
      ['房租应该怎么支付给房东', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(rent.selected.map((m: { file: string }) => m.file)[0]).toBe('rent.md');
    const train = await recallJson(
      ['新幹線の切符はどこで買う？', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(train.selected.map((m: { file: string }) => m.file)).toEqual(['train.md']);
    // Sharing only function words (我的, 需要, 什么) is no match.
    const dentist = await recallJson(
      ['我的牙医在哪里？', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(dentist.selected.map((m: { file: string }) => m.file)).toEqual(['dentist.md']);
    const none = await recallJson(
      ['今天的天气怎么样 会不会下雨', '--dir', s.dir, '--model', 'offline'],
      s.env,
    );
    expect(none.selected).toEqual([]);
  });

  it('the shape is logged; stale hits count; engram stats summarises and raises alarms', async () => {
    const s = sandbox();
    const now = Date.now();
    memory(s.dir, 'boiler.md', {
      description: 'The boiler pressure must be topped up to 1.5 bar each autumn',
      ageDays: 45,
      nowMs: now,
    });
    memory(s.dir, 'gutter.md', {
      description: 'Clean the roof gutter after the autumn leaves fall',
    });
    const log = join(s.root, 'recall.jsonl');
    const one = await recallJson(
      [
        'top up the boiler pressure this autumn',
        '--dir',
        s.dir,
        '--model',
        'offline',
        '--log',
        log,
      ],
      s.env,
    );
    expect(one.selected.map((m: { file: string }) => m.file)[0]).toBe('boiler.md');
    expect(one.shape.staleSelected).toBe(1);
    for (const key of [
      'candidates',
      'selected',
      'injectedBytes',
      'sessionCumulativeBytes',
      'staleSelected',
      'fallbackUsed',
      'timeSpentMs',
    ])
      expect(one.shape, key).toHaveProperty(key);
    const relaxed = await recallJson(
      [
        'top up the boiler pressure',
        '--dir',
        s.dir,
        '--model',
        'offline',
        '--stale-days',
        '60',
        '--no-log',
      ],
      s.env,
    );
    expect(relaxed.shape.staleSelected).toBe(0);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).staleSelected).toBe(1);

    // Always zero is an alarm.
    const zeroLog = join(s.root, 'zero.jsonl');
    for (let i = 0; i < 3; i++)
      await recallJson(
        ['tell me a joke about penguins', '--dir', s.dir, '--model', 'offline', '--log', zeroLog],
        s.env,
      );
    const stats = await cli(['stats', '--log', zeroLog, '--json', '--dir', s.dir], s.env);
    expect(stats.code).toBe(0);
    const summary = JSON.parse(stats.stdout);
    expect(summary.selectionCounts[0]).toBe(3);
    expect(summary.alarms.length).toBeGreaterThan(0);
    const text = await cli(['stats', '--log', log, '--dir', s.dir], s.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/stale/i);
    expect(text.stdout).toMatch(/budget/i);
  });

  it('bad --now and --model are input errors (exit 2)', async () => {
    const s = sandbox();
    kitchen(s.dir);
    expect(
      (await cli(['recall', 'bake bread now', '--dir', s.dir, '--now', 'yesterdayish'], s.env))
        .code,
    ).toBe(2);
    expect(
      (await cli(['recall', 'bake bread now', '--dir', s.dir, '--model', 'gpt'], s.env)).code,
    ).toBe(2);
  });
});
