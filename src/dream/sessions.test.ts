import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSessionRecord, sessionMemoryRoot, sessionPaths } from '../session/session-store.js';
import {
  claudeCodeTranscriptDir,
  combineSessionListers,
  sessionFolderLister,
  transcriptDirectoryLister,
} from './sessions.js';

const NOW = Date.now();
const HOUR = 3_600_000;

function touch(path: string, hoursAgo: number, content = '{}\n'): void {
  writeFileSync(path, content);
  const t = new Date(NOW - hoursAgo * HOUR);
  utimesSync(path, t, t);
}

describe('session listers', () => {
  it('transcript directory: *.jsonl files touched after the time, id = file stem, subfolders ignored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-transcripts-'));
    touch(join(dir, 'old.jsonl'), 50);
    touch(join(dir, 'new-1.jsonl'), 2);
    touch(join(dir, 'new-2.jsonl'), 1);
    touch(join(dir, 'notes.txt'), 1);
    mkdirSync(join(dir, 'new-1', 'subagents'), { recursive: true });
    touch(join(dir, 'new-1', 'subagents', 'agent-a.jsonl'), 1);
    const refs = await transcriptDirectoryLister(dir).listSessionsTouchedSince(NOW - 24 * HOUR);
    expect(refs.map((r) => r.id).sort()).toEqual(['new-1', 'new-2']);
    expect(refs.find((r) => r.id === 'new-1')?.path).toBe(join(dir, 'new-1.jsonl'));
    expect(await transcriptDirectoryLister(dir).listSessionsTouchedSince(0)).toHaveLength(3);
  });

  it('a missing directory means no sessions, not an error', async () => {
    const refs = await transcriptDirectoryLister(
      '/nonexistent/engram/transcripts',
    ).listSessionsTouchedSince(0);
    expect(refs).toEqual([]);
  });

  it("engram's session folders count by their newest file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-session-memory-'));
    for (const [id, hoursAgo] of [
      ['s-old', 40],
      ['s-new', 30],
    ] as const) {
      mkdirSync(join(dir, id));
      touch(join(dir, id, 'notes.md'), hoursAgo);
      const t = new Date(NOW - 40 * HOUR);
      utimesSync(join(dir, id), t, t);
    }
    touch(join(dir, 's-new', 'notes.md'), 1);
    touch(join(dir, 'template.md'), 1); // a file beside the folders is not a session
    const refs = await sessionFolderLister(dir).listSessionsTouchedSince(NOW - 24 * HOUR);
    expect(refs.map((r) => r.id)).toEqual(['s-new']);
  });

  it("with a project, engram's session folders count only that project's sessions", async () => {
    const home = mkdtempSync(join(tmpdir(), 'engram-home-'));
    const environment = (cwd: string) => ({ cwd, env: { ENGRAM_HOME: home }, homedir: home });
    const mine = mkdtempSync(join(tmpdir(), 'engram-project-a-'));
    const other = mkdtempSync(join(tmpdir(), 'engram-project-b-'));
    for (const [id, cwd] of [
      ['a-1', mine],
      ['a-2', join(mine)],
      ['b-1', other],
    ] as const) {
      await ensureSessionRecord(sessionPaths(environment(cwd), id), environment(cwd));
    }
    mkdirSync(join(home, 'session-memory', 'unrecorded'));
    const root = sessionMemoryRoot(environment(mine));
    const ids = async (projectRoot?: string) =>
      (
        await sessionFolderLister(
          root,
          projectRoot ? { projectRoot } : {},
        ).listSessionsTouchedSince(0)
      )
        .map((r) => r.id)
        .sort();
    expect(await ids(mine)).toEqual(['a-1', 'a-2']);
    expect(await ids(`${other}/`)).toEqual(['b-1']);
    expect(await ids()).toEqual(['a-1', 'a-2', 'b-1', 'unrecorded']);
  });

  it('combined listers count a session seen twice once', async () => {
    const a = { listSessionsTouchedSince: async () => [{ id: 'x', path: '/a/x', mtimeMs: 1 }] };
    const b = {
      listSessionsTouchedSince: async () => [
        { id: 'x', path: '/b/x', mtimeMs: 2 },
        { id: 'y', path: '/b/y', mtimeMs: 3 },
      ],
    };
    const refs = await combineSessionListers(a, b).listSessionsTouchedSince(0);
    expect(refs).toEqual([
      { id: 'x', path: '/b/x', mtimeMs: 2 },
      { id: 'y', path: '/b/y', mtimeMs: 3 },
    ]);
  });

  it("Claude Code's transcript folder: non-alphanumerics become '-', CLAUDE_CONFIG_DIR moves the root", async () => {
    expect(await claudeCodeTranscriptDir('/home/u/my.app', {}, '/home/u')).toBe(
      '/home/u/.claude/projects/-home-u-my-app',
    );
    expect(await claudeCodeTranscriptDir('/w', { CLAUDE_CONFIG_DIR: '/cfg' }, '/home/u')).toBe(
      '/cfg/projects/-w',
    );
    const root = mkdtempSync(join(tmpdir(), 'engram-claude-'));
    const long = `/${'a'.repeat(250)}`;
    const prefix = `-${'a'.repeat(199)}`;
    mkdirSync(join(root, 'projects', `${prefix}-h4sh`), { recursive: true });
    expect(await claudeCodeTranscriptDir(long, { CLAUDE_CONFIG_DIR: root }, '/home/u')).toBe(
      join(root, 'projects', `${prefix}-h4sh`),
    );
  });
});
