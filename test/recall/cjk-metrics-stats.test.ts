import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, kitchen, memory, recallJson, sandbox } from './support.js';

describe('CJK, metrics and stats', () => {
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
