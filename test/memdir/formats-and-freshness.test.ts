import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engram, gitRepo, indexTargets, json, sandbox } from './support.js';

describe('formats people actually have', () => {
  it('a memory written with CRLF line endings keeps its type and description', () => {
    const s = sandbox();
    const dir = join(s.root, 'windows');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'build_agent.md'),
      '---\r\nname: build agent\r\ndescription: CI runs on a Windows build agent\r\ntype: reference\r\n---\r\nagent-07\r\n',
    );
    writeFileSync(join(dir, 'MEMORY.md'), '- [Build agent](build_agent.md) — Windows CI agent\r\n');
    const list = engram(s, ['list', '--dir', dir]);
    expect(list.stdout).toMatch(
      /^- \[reference\] build_agent\.md \(.+\): CI runs on a Windows build agent$/m,
    );
    const audit = engram(s, ['audit', '--dir', dir, '--json']);
    expect(json(audit).problems).toEqual([]);
  });

  it('index lines stay near 150 characters even for a long title and description', () => {
    const s = sandbox();
    const dir = join(s.root, 'wordy');
    const title =
      'Kubernetes-Cluster-Upgrade auf Version 1.31 erfordert vorher die Migration aller Ingress-Objekte 🚢 und Zertifikate';
    const r = engram(
      s,
      [
        'add',
        '--dir',
        dir,
        '--json',
        '--type',
        'project',
        '--name',
        title,
        '--description',
        `${'Warum: '.repeat(40)}Ende`,
        '--body',
        'x\n**Why:** outage in März',
      ],
      {},
    );
    expect(r.code, r.stderr).toBe(0);
    const line = readFileSync(join(dir, 'MEMORY.md'), 'utf8').trimEnd();
    expect(line.length).toBeLessThanOrEqual(160);
    expect(line).not.toContain('\uFFFD');
    expect(indexTargets(dir)).toEqual([String(json(r).file)]);
  });

  it('canWriteWithoutPrompt answers from where a host runs, not only from a resolution', async () => {
    const s = sandbox();
    const memdir = await import('engram/memdir');
    const repo = gitRepo(join(s.root, 'svc'));
    const environment = {
      cwd: repo,
      homedir: s.home,
      env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: s.managed },
    };
    const dir = memdir.resolveMemoryDir(environment).path;
    expect(memdir.canWriteWithoutPrompt(join(dir, 'note.md'), environment)).toBe(true);
    expect(memdir.canWriteWithoutPrompt(join(repo, 'src', 'main.go'), environment)).toBe(false);
    const hosted = {
      ...environment,
      env: { ...environment.env, ENGRAM_MEMORY_DIR: join(s.root, 'hosted') },
    };
    expect(memdir.canWriteWithoutPrompt(join(s.root, 'hosted', 'note.md'), hosted)).toBe(false);
    // A symlink inside the directory does not carry the carve-out outside it.
    mkdirSync(join(s.home, '.ssh'), { recursive: true });
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(s.home, '.ssh'), join(dir, 'keys'));
    expect(memdir.canWriteWithoutPrompt(join(dir, 'keys', 'authorized_keys'), environment)).toBe(
      false,
    );
    expect(memdir.canWriteWithoutPrompt(join(dir, 'new-topic', 'note.md'), environment)).toBe(true);
  });
});

describe('freshness and guidance for agents', () => {
  it('whole-day ages, today / yesterday / N days ago, and a warning only past one day', async () => {
    const m = await import('engram/memdir');
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    const day = 86_400_000;
    expect(m.memoryAgeDays(now - 3 * 3_600_000, now)).toBe(0);
    expect(m.memoryAgeDays(now - day - 1, now)).toBe(1);
    expect(m.memoryAgeDays(now - 47.9 * day, now)).toBe(47);
    expect(m.memoryAgeText(0)).toBe('today');
    expect(m.memoryAgeText(1)).toBe('yesterday');
    expect(m.memoryAgeText(12)).toBe('12 days ago');
    expect(m.memoryAge(now - 12.5 * day, now)).toBe('12 days ago');
    expect(m.stalenessWarning(0)).toBe('');
    expect(m.stalenessWarning(1)).toBe('');
    expect(m.stalenessWarning(2)).toMatch(/2 days old/);
    expect(m.memoryFreshnessText(now - day, now)).toBe('');
    expect(m.memoryFreshnessText(now - 90 * day, now)).toMatch(/90 days old/);
  });

  it('the guidance names the four types, what not to save, the two steps, absolute dates, verification as its own section, and ignoring memory', async () => {
    const m = await import('engram/memdir');
    const text = m.memoryGuidance({ memoryDir: '/srv/agents/memory' });
    expect(m.memoryGuidance('/srv/agents/memory')).toBe(text);
    for (const t of ['user', 'feedback', 'project', 'reference'])
      expect(text).toMatch(new RegExp(`\\*\\*${t}\\*\\*`));
    expect(text).toMatch(/even when .*ask/i);
    expect(text).toContain('MEMORY.md');
    expect(text).toContain('/srv/agents/memory');
    expect(text).toMatch(/absolute/i);
    const headings = text.split('\n').filter((l) => /^#{1,3} /.test(l));
    const verify = headings.find((h) => /verif|check/i.test(h));
    expect(verify, headings.join('\n')).toBeDefined();
    expect(verify).toMatch(/^#{2,3} /);
    const ignore = text.split('\n').findIndex((l) => /ignore/i.test(l) && /memor/i.test(l));
    expect(ignore).toBeGreaterThan(-1);
    // The verification guidance is a section after the saving instructions, not a bullet.
    expect(text.indexOf(verify!)).toBeGreaterThan(text.indexOf('MEMORY.md'));
  });
});
