import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { maybeDream } from 'engram/dream';
import { auditMemoryDir, INDEX_MAX_BYTES, INDEX_MAX_LINES } from 'engram/memdir';
import { scriptedModel } from 'engram/test';
import { describe, expect, it } from 'vitest';
import {
  countingLister,
  fresh,
  HOUR,
  lockOf,
  seedMemories,
  setLock,
  startServer,
} from './support.js';

describe('rollback and commit of the lock mtime', () => {
  async function due(memoryDir: string) {
    const prior = await setLock(memoryDir, '', Date.now() - 40 * HOUR);
    return prior;
  }

  it('a failed run restores the prior mtime exactly', async () => {
    const server = await startServer({ fallback: null });
    server.push({ error: { status: 400, message: 'roto' } });
    const memoryDir = await fresh('mem');
    const prior = await due(memoryDir);
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(6),
    });
    expect(out.kind === 'ran' ? out.lock : out.kind).not.toBe('committed');
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBe(prior);
  });

  it('a failed first run (no lock before) leaves no lock file', async () => {
    const server = await startServer({ fallback: null });
    server.push({ error: { status: 400 } });
    const memoryDir = await fresh('mem');
    await maybeDream({ memoryDir, model: scriptedModel(server), sessions: countingLister(6) });
    expect(existsSync(lockOf(memoryDir))).toBe(false);
  });

  it('an aborted run restores the prior mtime exactly', async () => {
    const server = await startServer();
    server.push({ text: 'pensando', delayMs: 20_000 });
    const memoryDir = await fresh('mem');
    const prior = await due(memoryDir);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(6),
      signal: controller.signal,
    });
    expect(out.kind === 'ran' ? out.lock : out.kind).not.toBe('committed');
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBe(prior);
  });

  it('a successful run leaves the mtime at about now; the next call stops at the time gate', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    await due(memoryDir);
    const sessions = countingLister(6);
    const before = Date.now();
    const out = await maybeDream({ memoryDir, model: scriptedModel(server), sessions });
    expect(out.kind === 'ran' && out.lock).toBe('committed');
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBeGreaterThanOrEqual(before - 1_000);
    const next = await maybeDream({ memoryDir, model: scriptedModel(server), sessions });
    expect(next.kind === 'stopped' && next.gate).toBe('time');
  });
});

describe('a scripted merge + revoke leaves a consistent directory', () => {
  it('audit clean and the index within caps', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    await seedMemories(memoryDir);
    const revoked = (name: string, desc: string, by: string, why: string) =>
      `---\nname: ${name}\ndescription: ${desc}\ntype: project\nstatus: revoked\nrevoked: 2026-11-29\nreason: ${why}\nsuperseded_by: ${by}\n---\nSuperseded by ${by}.\n`;
    server.push(
      {
        toolUse: [
          { name: 'list', input: { path: '.' } },
          { name: 'read', input: { path: 'MEMORY.md' } },
        ],
      },
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: 'despliegue-viernes.md',
              content:
                '---\nname: despliegue-viernes\ndescription: no deploys on Fridays (nobody on call over the weekend)\ntype: project\n---\nNo desplegar los viernes.\n\n**Why:** nadie de guardia el fin de semana.\n**How to apply:** mover al lunes.\n',
            },
          },
          {
            name: 'write',
            input: {
              path: 'no-deploy-friday.md',
              content: revoked(
                'no-deploy-friday.md',
                'no deploys on friday',
                'despliegue-viernes.md',
                'duplicate',
              ),
            },
          },
          {
            name: 'write',
            input: {
              path: 'base-datos.md',
              content: revoked(
                'base-datos.md',
                'la base de datos es MySQL 5.7',
                'postgres.md',
                'migrated to PostgreSQL 16 on 2026-11-20',
              ),
            },
          },
          {
            name: 'write',
            input: {
              path: 'postgres.md',
              content:
                '---\nname: postgres\ndescription: the database is PostgreSQL 16 since 2026-11-20\ntype: project\n---\nPostgreSQL 16.\n\n**Why:** migration finished 2026-11-20.\n**How to apply:** JSONB is fine.\n',
            },
          },
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content:
                '- [Despliegue](despliegue-viernes.md) — no deploys on Fridays\n- [Postgres](postgres.md) — PostgreSQL 16 since 2026-11-20\n',
            },
          },
        ],
      },
      { text: 'Merged the Friday duplicates; revoked MySQL.' },
    );
    const phases: string[] = [];
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(5),
      onProgress: (p) => {
        if (phases.at(-1) !== p.phase) phases.push(p.phase);
      },
    });
    expect(phases).toEqual(['starting', 'updating']);
    expect(out.kind).toBe('ran');
    if (out.kind !== 'ran') return;
    expect(out.lock).toBe('committed');
    expect(out.run.status).toBe('completed');
    expect(out.run.invariants.ok).toBe(true);
    expect(out.run.progress.phase).toBe('updating');
    expect(out.run.progress.filesTouched.length).toBeGreaterThanOrEqual(4);
    const audit = await auditMemoryDir(memoryDir);
    expect(audit.problems).toEqual([]);
    const index = await readFile(join(memoryDir, 'MEMORY.md'), 'utf8');
    expect(index.split('\n').length).toBeLessThanOrEqual(INDEX_MAX_LINES);
    expect(Buffer.byteLength(index)).toBeLessThanOrEqual(INDEX_MAX_BYTES);
    // Nothing was deleted: the duplicate and the contradicted fact are revoked, not gone.
    expect(await readFile(join(memoryDir, 'no-deploy-friday.md'), 'utf8')).toContain(
      'status: revoked',
    );
    expect(await readFile(join(memoryDir, 'base-datos.md'), 'utf8')).toContain(
      'superseded_by: postgres.md',
    );
    // The instruction names the four phases and the sessions to review.
    const prompt = JSON.stringify(server.requests[0]?.body.messages);
    expect(prompt).toMatch(/orient/i);
    expect(prompt).toMatch(/gather/i);
    expect(prompt).toMatch(/consolidat/i);
    expect(prompt).toMatch(/prune/i);
    expect(prompt).toContain('sess-3');
  });

  it('a delete or a write outside the directory is refused during a pass', async () => {
    const server = await startServer();
    const top = await fresh('top');
    const memoryDir = join(top, 'memory');
    await mkdir(memoryDir);
    await seedMemories(memoryDir);
    await writeFile(join(top, 'README.md'), 'intacto\n');
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: join(top, 'README.md'), content: 'x' } },
          { name: 'delete', input: { path: 'base-datos.md' } },
          { name: 'write', input: { path: '.consolidate-lock', content: '1' } },
        ],
      },
      { text: 'nada' },
    );
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(5),
      force: true,
    });
    expect(out.kind).toBe('ran');
    expect(await readFile(join(top, 'README.md'), 'utf8')).toBe('intacto\n');
    expect(existsSync(join(memoryDir, 'base-datos.md'))).toBe(true);
    if (out.kind === 'ran') expect(out.run.progress.refusedCalls).toBe(3);
  });
});
