import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import {
  auditMemoryDir,
  INDEX_LINE_MAX_CHARS,
  readIndexRaw,
  scanMemories,
  truncateIndex,
} from '../memdir/index.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { createDreamer } from './dreamer.js';
import { consolidationLockPath } from './lock.js';
import { runDream } from './run.js';
import { transcriptDirectoryLister } from './sessions.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

const memory = (name: string, description: string, type: string, body: string, extra = '') =>
  `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\ntype: ${type}\n${extra}---\n${body}\n`;

/** A directory with two memories saying the same thing and one the project has since contradicted. */
function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'engram-dream-run-'));
  const memoryDir = join(root, 'memory');
  const transcripts = join(root, 'transcripts');
  mkdirSync(memoryDir);
  mkdirSync(transcripts);
  const files: Record<string, string> = {
    'deploy-make-ship.md': memory(
      'deploy-make-ship',
      'production deploys go through make ship',
      'project',
      'Deploy to production with `make ship`.\n**Why:** it runs the smoke tests first.\n**How to apply:** never push images by hand.',
    ),
    'deploying.md': memory(
      'deploying',
      'how we deploy: make ship from main',
      'project',
      'We deploy with make ship, only from main.\n**Why:** release tags are cut from main.\n**How to apply:** merge first, then ship.',
    ),
    'database-mysql.md': memory(
      'database-mysql',
      'the app stores its data in MySQL 5.7',
      'project',
      'The app uses MySQL 5.7.\n**Why:** legacy hosting.\n**How to apply:** write MySQL-compatible SQL.',
    ),
    'tests-vitest.md': memory(
      'tests-vitest',
      'run tests with vitest, not jest',
      'feedback',
      'Use vitest.\n**Why:** jest was removed.\n**How to apply:** npx vitest run.',
    ),
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(join(memoryDir, file), text);
  writeFileSync(
    join(memoryDir, 'MEMORY.md'),
    [
      '- [Deploy with make ship](deploy-make-ship.md) — production deploys go through make ship',
      '- [Deploying](deploying.md) — how we deploy: make ship from main',
      '- [Database is MySQL](database-mysql.md) — the app stores its data in MySQL 5.7',
      '- [Tests use vitest](tests-vitest.md) — run tests with vitest, not jest',
      '',
    ].join('\n'),
  );
  for (let i = 0; i < 5; i++) writeFileSync(join(transcripts, `s${i}.jsonl`), '{"type":"user"}\n');
  writeFileSync(
    join(transcripts, 's3.jsonl'),
    '{"type":"user","message":{"role":"user","content":"We finished the move to Postgres 16 on 2026-11-20."}}\n',
  );
  return { root, memoryDir, transcripts };
}

describe('a scripted consolidation run', () => {
  it('merges two duplicates, revokes a contradicted memory, and leaves the directory consistent', async () => {
    const { memoryDir, transcripts } = fixture();
    const session = join(transcripts, 's3.jsonl');
    server.push(
      {
        toolUse: [
          { name: 'list', input: {} },
          { name: 'read', input: { path: 'MEMORY.md' } },
          { name: 'find', input: { name: '*.jsonl', path: transcripts } },
        ],
      },
      { toolUse: [{ name: 'grep', input: { pattern: 'Postgres|MySQL', path: session } }] },
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: 'deploy-make-ship.md',
              content: memory(
                'deploy-make-ship',
                'production deploys: make ship, only from main',
                'project',
                'Deploy to production with `make ship`, only from main.\n**Why:** it runs the smoke tests first, and release tags are cut from main.\n**How to apply:** merge to main, then run make ship; never push images by hand.',
              ),
            },
          },
          {
            name: 'edit',
            input: {
              path: 'deploying.md',
              old_string: 'type: project\n',
              new_string:
                'type: project\nstatus: revoked\nrevoked: 2026-11-29\nreason: duplicate of deploy-make-ship.md, merged there\nsuperseded_by: deploy-make-ship.md\n',
            },
          },
          {
            name: 'edit',
            input: {
              path: join(memoryDir, 'database-mysql.md'),
              old_string: 'type: project\n',
              new_string:
                'type: project\nstatus: revoked\nrevoked: 2026-11-29\nreason: the app moved to Postgres 16 on 2026-11-20\nsuperseded_by: database-postgres.md\n',
            },
          },
          {
            name: 'write',
            input: {
              path: 'database-postgres.md',
              content: memory(
                'database-postgres',
                'the app stores its data in Postgres 16 (since 2026-11-20)',
                'project',
                'The app uses Postgres 16 since 2026-11-20.\n**Why:** the MySQL host was retired.\n**How to apply:** write Postgres SQL.',
              ),
            },
          },
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content: [
                '- [Deploy with make ship](deploy-make-ship.md) — production deploys: make ship, only from main',
                '- [Database is Postgres 16](database-postgres.md) — data lives in Postgres 16 since 2026-11-20',
                '- [Tests use vitest](tests-vitest.md) — run tests with vitest, not jest',
                '',
              ].join('\n'),
            },
          },
        ],
      },
      { text: 'Merged deploying.md into deploy-make-ship.md; revoked database-mysql.md.' },
    );
    const progress: string[] = [];
    const dreamer = createDreamer({
      memoryDir,
      sessions: transcriptDirectoryLister(transcripts),
      model: scriptedModel(server),
    });
    const outcome = await dreamer.maybeDream({ onProgress: (p) => progress.push(p.phase) });
    if (outcome.kind !== 'ran') throw new Error(JSON.stringify(outcome));
    expect(outcome.lock).toBe('committed');
    expect(outcome.run.status).toBe('completed');
    expect(outcome.run.invariants).toMatchObject({
      ok: true,
      violations: [],
      memoriesBefore: 4,
      memoriesAfter: 5,
      indexEntriesBefore: 4,
      indexEntriesAfter: 3,
      longIndexLines: 0,
    });
    expect(outcome.run.progress).toMatchObject({
      phase: 'updating',
      sessionsToReview: 5,
      sessionsReviewed: ['s3'],
      filesTouched: [
        'deploy-make-ship.md',
        'deploying.md',
        'database-mysql.md',
        'database-postgres.md',
        'MEMORY.md',
      ],
      turns: 4,
      refusedCalls: 0,
    });
    expect(progress[0]).toBe('starting');
    expect(progress.at(-1)).toBe('updating');

    const audit = await auditMemoryDir(memoryDir);
    expect(audit.problems).toEqual([]);
    const index = (await readIndexRaw(memoryDir)) ?? '';
    expect(truncateIndex(index).truncated).toBe(false);
    for (const line of index.trim().split('\n'))
      expect(line.length).toBeLessThanOrEqual(INDEX_LINE_MAX_CHARS);
    const byFile = new Map((await scanMemories(memoryDir)).memories.map((m) => [m.file, m]));
    expect(byFile.get('deploying.md')?.status).toBe('revoked');
    expect(byFile.get('deploying.md')?.frontmatter.superseded_by).toBe('deploy-make-ship.md');
    expect(byFile.get('database-mysql.md')?.status).toBe('revoked');
    expect(byFile.get('database-mysql.md')?.frontmatter.reason).toMatch(/Postgres 16/);
    // Revoked files stay on disk as the record of what was believed.
    expect(readFileSync(join(memoryDir, 'database-mysql.md'), 'utf8')).toMatch(/MySQL 5\.7/);
  });

  it('reports what a run broke: a dangling pointer and an orphan are violations', async () => {
    const { memoryDir } = fixture();
    server.push(
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content: '- [Gone](gone.md) — a file that does not exist\n',
            },
          },
        ],
      },
      { text: 'done' },
    );
    const result = await runDream({ model: scriptedModel(server), memoryDir, sessions: [] });
    expect(result.status).toBe('completed');
    expect(result.invariants.ok).toBe(false);
    const kinds = result.invariants.violations.map((v) => `${v.kind}:${v.file}`).sort();
    expect(kinds).toEqual([
      'dangling_pointer:gone.md',
      'orphan:database-mysql.md',
      'orphan:deploy-make-ship.md',
      'orphan:deploying.md',
      'orphan:tests-vitest.md',
    ]);
  });

  it('refuses writes to the lock, to non-memory files and outside the directory; the lock survives', async () => {
    const { root, memoryDir } = fixture();
    writeFileSync(consolidationLockPath(memoryDir), '');
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: '.consolidate-lock', content: '1' } },
          { name: 'write', input: { path: 'notes.txt', content: 'x' } },
          { name: 'write', input: { path: join(root, 'outside.md'), content: 'x' } },
          { name: 'bash', input: { command: 'rm -rf .' } },
        ],
      },
      { text: 'done' },
    );
    const result = await runDream({ model: scriptedModel(server), memoryDir, sessions: [] });
    expect(result.progress.refusedCalls).toBe(4);
    expect(result.progress.phase).toBe('starting');
    expect(readFileSync(consolidationLockPath(memoryDir), 'utf8')).toBe('');
    expect(existsSync(join(memoryDir, 'notes.txt'))).toBe(false);
    expect(existsSync(join(root, 'outside.md'))).toBe(false);
    const results = JSON.stringify(server.requests[1]?.body.messages.at(-1));
    expect(results).toMatch(/not a memory file/);
    expect(results).toMatch(/outside/);
  });

  it('forks from a host conversation: its system, tools and messages go first, unchanged', async () => {
    const { memoryDir } = fixture();
    const prefix = {
      system: 'You are the host agent.',
      tools: FILE_TOOL_DEFINITIONS,
      messages: [
        { id: 'u1', role: 'user' as const, content: [{ type: 'text' as const, text: 'hello' }] },
        { id: 'a1', role: 'assistant' as const, content: [{ type: 'text' as const, text: 'hi' }] },
      ],
    };
    server.push({ text: 'done' });
    await runDream({ model: scriptedModel(server), memoryDir, sessions: [], prefix });
    const body = server.requests[0]?.body;
    expect(JSON.stringify(body.system)).toContain('You are the host agent.');
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(
      FILE_TOOL_DEFINITIONS.map((t) => t.name),
    );
    // Same blocks (the model layer may add a prompt-cache breakpoint to the shared part).
    expect(body.messages[0].content).toMatchObject([{ type: 'text', text: 'hello' }]);
    expect(body.messages[0].content).toHaveLength(1);
    expect(JSON.stringify(body.messages[2])).toContain('Phase 1');
  });
});
