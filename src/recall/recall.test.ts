import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_MEMORY_BYTES, MAX_SESSION_BYTES } from '../inject/constants.js';
import { injectionHistory } from '../inject/history.js';
import { renderInjection } from '../inject/render.js';
import type { Message } from '../llm/types.js';
import { revokeMemory } from '../memdir/memory-file.js';
import {
  assistantText,
  DAY,
  NOW,
  seedMemories,
  tempMemoryDir,
  userText,
} from './__fixtures__/memdir.js';
import { readRecallMetrics } from './metrics.js';
import { recall } from './recall.js';

const deployTopics = ['staging', 'canary', 'rollback', 'docker', 'terraform', 'helm', 'dns'];

async function deployDir(count: number): Promise<string> {
  const dir = tempMemoryDir();
  await seedMemories(
    dir,
    deployTopics.slice(0, count).map((t, i) => ({
      file: `deploy-${t}.md`,
      description: `Deploy pipeline note about ${t}: how the deploy works`,
      ageDays: i,
    })),
  );
  return dir;
}

describe('recall (offline ranker)', () => {
  it('returns zero memories for an unrelated query: zero is a normal answer', async () => {
    const dir = await deployDir(5);
    const result = await recall({ dir, query: 'what rhymes with orange', now: NOW });
    expect(result.selected).toEqual([]);
    expect(result.text).toBe('');
    expect(result.shape).toMatchObject({
      skipped: null,
      candidates: 5,
      selected: 0,
      injectedBytes: 0,
    });
  });

  it('injects at most five: the sixth relevant memory stays out', async () => {
    const dir = await deployDir(6);
    const result = await recall({ dir, query: 'how does the deploy pipeline work', now: NOW });
    expect(result.selected).toHaveLength(5);
    expect(injectionHistory([userText('u', result.text)]).surfacedFiles.size).toBe(5);
    expect(result.shape.selected).toBe(5);
  });

  it("reads a long prompt's two ends only: what they ask is recalled, the middle is not read", async () => {
    const dir = await deployDir(3);
    // A pasted log between the question and its last line: the log's middle names the canary
    // memory's topic again and again, the ends (and the filler around them) only the rollback.
    const filler = 'zqx '.repeat(3_000);
    const middle = `${filler}${'canary '.repeat(50_000)}${filler}`;
    const query = `why did the rollback deploy fail\n${middle}\nplease check the rollback deploy`;
    const long = await recall({ dir, query, now: NOW });
    const ends = await recall({
      dir,
      query: `${query.slice(0, 8_192)}\n${query.slice(-8_192)}`,
      now: NOW,
    });
    expect(long.selected.map((m) => m.file)).toEqual(ends.selected.map((m) => m.file));
    expect(long.selected.map((m) => m.file)).toContain('deploy-rollback.md');
    expect(long.text).toBe(ends.text);
    expect(long.notes.join('\n')).toMatch(/recall read its first and last 8192/);
  });

  it('refuses a call without a query string with a clear error', async () => {
    const dir = await deployDir(1);
    await expect(recall({ dir } as unknown as Parameters<typeof recall>[0])).rejects.toThrow(
      /recall needs a `query`/,
    );
  });

  it('skips single-word prompts before touching the directory', async () => {
    const result = await recall({ dir: '/nonexistent/engram', query: '  continue ', now: NOW });
    expect(result.shape.skipped).toBe('single_word');
    expect(result.text).toBe('');
  });

  it('never offers a surfaced memory again, until a compaction drops it', async () => {
    const dir = await deployDir(6);
    const query = 'how does the deploy pipeline work';
    const turn1 = await recall({ dir, query, now: NOW });
    const messages: Message[] = [userText('u1', query, turn1.text), assistantText('a1', 'done')];
    const turn2 = await recall({ dir, query: `${query} again`, messages, now: NOW });
    messages.push(userText('u2', 'and again', turn2.text), assistantText('a2', 'done'));
    const first = turn1.selected.map((m) => m.file);
    const second = turn2.selected.map((m) => m.file);
    expect(second).toHaveLength(1); // the sixth: the five surfaced ones are not candidates
    expect(second.some((f) => first.includes(f))).toBe(false);
    expect(turn2.shape.surfacedExcluded).toBe(5);

    const turn3 = await recall({ dir, query: `${query} once more`, messages, now: NOW });
    expect(turn3.selected).toEqual([]); // everything relevant is already in the conversation
    expect(turn3.shape.surfacedExcluded).toBe(6);

    // A compaction replaces the first two messages by a summary: turn 1's memories return.
    const compacted = [userText('s', 'Summary of earlier work.'), ...messages.slice(2)];
    const turn4 = await recall({
      dir,
      query: `${query} after compaction`,
      messages: compacted,
      now: NOW,
    });
    expect(turn4.selected.map((m) => m.file).sort()).toEqual([...first].sort());
  });

  it('honours files passed as already surfaced', async () => {
    const dir = await deployDir(2);
    const result = await recall({
      dir,
      query: 'deploy pipeline staging',
      alreadySurfaced: ['deploy-staging.md'],
      now: NOW,
    });
    expect(result.selected.map((m) => m.file)).toEqual(['deploy-canary.md']);
  });

  it('never recalls revoked memories or ones without a description', async () => {
    const dir = await deployDir(2);
    await revokeMemory(dir, 'deploy-staging.md', { reason: 'wrong' });
    await writeFile(join(dir, 'bare.md'), 'deploy pipeline notes without frontmatter\n');
    const result = await recall({ dir, query: 'deploy pipeline staging canary notes', now: NOW });
    expect(result.selected.map((m) => m.file)).toEqual(['deploy-canary.md']);
  });

  it('cuts a 50 KB memory to 4,096 bytes at a newline, with a note naming the file', async () => {
    const dir = tempMemoryDir();
    const body = Array.from(
      { length: 1000 },
      (_, i) => `Step ${i}: run the migration carefully.`,
    ).join('\n');
    await seedMemories(dir, [{ file: 'huge.md', description: 'database migration runbook', body }]);
    const result = await recall({ dir, query: 'run the database migration', now: NOW });
    const [memory] = injectionHistory([userText('u', result.text)]).surfacedFiles;
    expect(memory).toBe('huge.md');
    expect(result.selected[0]?.truncated).toBe(true);
    const path = join(dir, 'huge.md');
    const payload = result.text.split(`Memory (saved today): ${path}:\n\n`)[1]!;
    const kept = payload.slice(0, payload.indexOf('[Shortened'));
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(MAX_MEMORY_BYTES);
    expect(kept.endsWith('\n')).toBe(true);
    expect(payload).toContain(`Read the full memory at ${path}`);
  });

  it('stops injecting at the 60 KiB session budget and says so once', async () => {
    const dir = tempMemoryDir();
    const body = `${'Keep the cache warm before the load test. '.repeat(2)}\n`.repeat(60);
    await seedMemories(
      dir,
      Array.from({ length: 40 }, (_, i) => ({
        file: `cache-${String(i).padStart(2, '0')}.md`,
        description: `load test cache warming note ${i}`,
        body,
      })),
    );
    const messages: Message[] = [];
    const notices: number[] = [];
    for (let turn = 0; turn < 8; turn++) {
      const result = await recall({
        dir,
        query: 'warm the cache for the load test',
        messages,
        now: NOW,
      });
      if (result.injection.notice) notices.push(turn);
      messages.push(userText(`u${turn}`, 'warm the cache for the load test', result.text));
      messages.push(assistantText(`a${turn}`, 'ok'));
      expect(injectionHistory(messages).sessionBytes).toBeLessThanOrEqual(MAX_SESSION_BYTES);
    }
    expect(notices).toHaveLength(1);
    const last = await recall({
      dir,
      query: 'warm the cache for the load test',
      messages,
      now: NOW,
    });
    expect(last.shape).toMatchObject({
      skipped: 'session_budget_exhausted',
      budgetExhausted: true,
    });
    expect(last.text).toBe('');
  });

  it('freezes headers: the stored conversation renders byte-identically two days later', async () => {
    const dir = tempMemoryDir();
    await seedMemories(dir, [
      { file: 'fresh.md', description: 'release checklist for the mobile app', ageDays: 0 },
      { file: 'old.md', description: 'release train schedule for the mobile app', ageDays: 12 },
    ]);
    // Each memory answers a part of the prompt of its own (the checklist, the train schedule).
    const prompt = 'prepare the mobile app release checklist and the train schedule';
    const turn1 = await recall({ dir, query: prompt, now: NOW });
    expect(turn1.selected.map((m) => m.header)).toEqual(
      expect.arrayContaining([
        `Memory (saved today): ${join(dir, 'fresh.md')}:`,
        expect.stringMatching(/^This memory is 12 days old\.[\s\S]*\n\nMemory: .*old\.md:$/),
      ]),
    );
    const stored = [turn1.injection];
    const renderToday = stored.map(renderInjection).join('\n');
    // Two days later: a new turn is recalled at the new time; the stored turn is not recomputed.
    const messages = [userText('u1', prompt, turn1.text)];
    const turn2 = await recall({
      dir,
      query: 'mobile app release notes',
      messages,
      now: NOW + 2 * DAY,
    });
    expect(turn2.selected).toEqual([]);
    expect(stored.map(renderInjection).join('\n')).toBe(renderToday);
    expect(renderToday).toBe(turn1.text);
  });

  it('selects the right memory for a CJK query against CJK descriptions', async () => {
    const dir = tempMemoryDir();
    await seedMemories(dir, [
      {
        file: 'bun-test.md',
        description: '测试必须用 bun test 运行，不要用 jest',
        type: 'feedback',
      },
      { file: 'release.md', description: '发版前必须先提交代码再发布', type: 'project' },
      { file: 'style.md', description: '文章里不要加表情符号', type: 'feedback' },
    ]);
    const result = await recall({ dir, query: '帮我跑一下 测试', now: NOW });
    expect(result.selected.map((m) => m.file)).toEqual(['bun-test.md']);
    // Written as people write Chinese: no spaces at all.
    const noSpaces = await recall({ dir, query: '怎么运行测试', now: NOW });
    expect(noSpaces.selected.map((m) => m.file)).toEqual(['bun-test.md']);
    // One two-character word beside a piece no memory knows ("准备 发版": 准备 is known to none) is
    // as weak as an everyday English word there (matched-words.ts); "流程" is generic, not unknown.
    const release = await recall({ dir, query: '发版 流程', now: NOW });
    expect(release.selected.map((m) => m.file)).toEqual(['release.md']);
  });

  it('prefilters beyond 200 memories instead of dropping the oldest, and says so', async () => {
    const dir = tempMemoryDir();
    const seeds = Array.from({ length: 205 }, (_, i) => ({
      file: `note-${String(i).padStart(3, '0')}.md`,
      description: `ordinary note number ${i}`,
      ageDays: 1,
    }));
    seeds.push({
      file: 'ancient.md',
      description: 'kubernetes ingress certificate renewal',
      ageDays: 400,
    });
    await seedMemories(dir, seeds);
    const result = await recall({ dir, query: 'renew the ingress certificate', now: NOW });
    expect(result.shape).toMatchObject({ total: 206, candidates: 200, prefiltered: true });
    expect(result.selected.map((m) => m.file)).toEqual(['ancient.md']);
    expect(result.selected[0]?.stale).toBe(true);
    expect(result.shape.staleSelected).toBe(1);
    expect(result.notes.join(' ')).toMatch(/206 memories/);
  });

  it('prefilters only when more memories remain eligible than the cap', async () => {
    const dir = await deployDir(7);
    const query = 'how does the deploy pipeline work';
    const over = await recall({ dir, query, now: NOW, candidateCap: 5 });
    expect(over.shape).toMatchObject({ total: 7, candidates: 5, prefiltered: true });
    const surfaced = ['deploy-staging.md', 'deploy-canary.md', 'deploy-rollback.md'];
    const under = await recall({
      dir,
      query,
      now: NOW,
      candidateCap: 5,
      alreadySurfaced: surfaced,
    });
    expect(under.shape).toMatchObject({ candidates: 4, prefiltered: false, surfacedExcluded: 3 });
    expect(under.notes).toEqual([]);
  });

  it('appends its shape to a JSONL log', async () => {
    const dir = await deployDir(3);
    const log = join(dir, '.engram', 'recall.jsonl');
    await recall({ dir, query: 'deploy pipeline staging', now: NOW, metricsLog: log });
    await recall({ dir, query: 'unrelated words entirely', now: NOW, metricsLog: log });
    const { shapes, badLines } = await readRecallMetrics(log);
    expect(badLines).toBe(0);
    // Only the staging note has a word of its own; the other two share only "deploy pipeline",
    // which every memory here holds, so nothing pads the answer to three.
    expect(shapes.map((s) => s.selected)).toEqual([1, 0]);
    expect(shapes[0]).toMatchObject({ candidates: 3, selector: 'offline', fallback: false });
    expect(shapes[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });
});
