/**
 * A user memory is recalled in many projects, some with no memory folder of their own. Its
 * last-recalled time (the reference decay's input) lives in the user layer's own recall log, so
 * a recall anywhere counts, and a project without a memory folder still records it.
 */
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
import { describe, expect, it } from 'vitest';
import { RECALL_METRICS_FILE } from '../../src/recall/metrics.js';
import { createEngram } from '../../src/runtime/create-engram.js';
import { fixedClock } from '../../src/util/clock.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const DAY = 86_400_000;

function machine() {
  const root = mkdtempSync(join(tmpdir(), 'engram-user-log-'));
  const home = join(root, 'home');
  const engramHome = join(home, '.engram');
  const userDir = join(engramHome, 'user', 'memory');
  mkdirSync(userDir, { recursive: true });
  const repo = (name: string) => {
    const cwd = join(root, name);
    mkdirSync(cwd, { recursive: true });
    return createEngram({
      cwd,
      homedir: home,
      // Managed policy settings of its own: the default, /etc/engram, is the machine's, and a
      // policy file there (decay, the memory directory) would change what these recalls pick.
      env: { ENGRAM_HOME: engramHome, ENGRAM_MANAGED_DIR: join(root, 'managed') },
      clock: fixedClock(NOW),
    });
  };
  const reference = (file: string, description: string, dir = userDir, ageDays = 90) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, file),
      `---\nname: ${file}\ndescription: ${description}\ntype: reference\n---\nSee the board.\n`,
    );
    const t = (NOW - ageDays * DAY) / 1000;
    utimesSync(join(dir, file), t, t);
  };
  return { userDir, repo, reference };
}

describe('the user layer’s recall log', () => {
  it('records a user memory recalled in a repository with no memory folder', async () => {
    const { userDir, repo, reference } = machine();
    reference('latency-board.md', 'grafana board for checkout latency alerts');
    const engram = repo('no-memory-folder');
    const result = await engram.recall({
      query: 'where is the grafana board for checkout latency',
    });
    expect(result.selected.map((m) => [m.file, m.layer])).toEqual([['latency-board.md', 'user']]);
    expect(existsSync(engram.memoryDir)).toBe(false); // still never created to log a read
    const lines = readFileSync(join(userDir, RECALL_METRICS_FILE), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).files)).toEqual([['latency-board.md']]);
  });

  it('keeps a reference recalled in another repository ahead of an equal one nobody recalled', async () => {
    const { repo, reference } = machine();
    // Two references alike in every word, both written 90 days ago.
    reference('alpha-board.md', 'dashboard links for the billing service deploys');
    reference('zeta-board.md', 'dashboard links for the billing service deploys');
    const query = 'dashboard links for the billing service deploys';
    const elsewhere = repo('elsewhere');
    // Recalled yesterday in another repository (no memory folder there either).
    const yesterday = elsewhere.recall({
      query,
      clock: fixedClock(NOW - DAY),
      alreadySurfaced: ['zeta-board.md'],
    });
    expect((await yesterday).selected.map((m) => m.file)).toEqual(['alpha-board.md']);
    const here = await repo('here').recall({ query });
    expect(here.selected.map((m) => m.file)[0]).toBe('alpha-board.md');
  });

  it('never lends a project memory’s recall in another repository to the user memory of that name', async () => {
    const { userDir, repo, reference } = machine();
    const query = 'dashboard links for the billing service deploys';
    // Alike in every word; alpha-board was written a little later, so it comes first.
    reference('alpha-board.md', 'dashboard links for the billing service deploys', userDir, 80);
    reference('zeta-board.md', 'dashboard links for the billing service deploys');
    reference('kafka-topics.md', 'kafka topic names and partition counts');
    // Repository A has a project memory named like the user's zeta-board (it shadows it there).
    const a = repo('a');
    reference('zeta-board.md', 'grafana panels of the payments queue', a.memoryDir);
    // Recalled yesterday in A with a user memory: the line goes to the user layer's log too.
    const yesterday = await a.recall({
      query: 'grafana panels of the payments queue and its kafka topic partition counts',
      clock: fixedClock(NOW - DAY),
    });
    expect(yesterday.selected.map((m) => `${m.layer}:${m.file}`).sort()).toEqual([
      'project:zeta-board.md',
      'user:kafka-topics.md',
    ]);
    // In B neither user board was ever recalled: A's project memory says nothing about them.
    const here = await repo('b').recall({ query, alreadySurfaced: ['kafka-topics.md'] });
    const fresh = await repo('c').recall({
      query,
      alreadySurfaced: ['kafka-topics.md'],
      log: false,
    });
    expect(fresh.selected.map((m) => m.file)[0]).toBe('alpha-board.md');
    expect(here.selected.map((m) => m.file)).toEqual(fresh.selected.map((m) => m.file));
  });

  it('still reads a user log line written before it named layer directories, by file name', async () => {
    const { userDir, repo, reference } = machine();
    const query = 'dashboard links for the billing service deploys';
    reference('alpha-board.md', query);
    reference('zeta-board.md', query);
    mkdirSync(join(userDir, '.engram'), { recursive: true });
    const old = { at: new Date(NOW - DAY).toISOString(), selected: 1, files: ['zeta-board.md'] };
    writeFileSync(join(userDir, RECALL_METRICS_FILE), `${JSON.stringify(old)}\n`);
    const here = await repo('here').recall({ query });
    expect(here.selected.map((m) => m.file)[0]).toBe('zeta-board.md');
  });
});
