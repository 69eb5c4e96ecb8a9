/**
 * Consolidation with a user layer: a fact about the person found in a project's directory is
 * written in the user directory (with that directory's index line) and the project copy revoked;
 * `engram dream` reports where each file was written, checks both directories, and repository B
 * then sees the fact while the project's own memory stays in A.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIndexEntries } from '../../src/memdir/index-file.js';
import { machineWithModel } from '../support/machine-with-model.js';

const memory = (name: string, type: string, description: string, extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n${extra}---\n${description}.\n**Why:** said so.\n**How to apply:** always.\n`;

const machine = machineWithModel('engram-dream-layers-');
const run = (cwd: string, ...args: string[]) => machine().run(cwd, ...args);

describe('consolidation with a user layer', () => {
  it('moves a fact about the person to the user layer and reports both directories', async () => {
    const { home, server } = machine();
    const a = join(home, 'repo-a');
    const b = join(home, 'repo-b');
    await mkdir(a);
    await mkdir(b);
    const transcripts = join(home, 'transcripts');
    await mkdir(transcripts);
    await writeFile(join(transcripts, 't1.jsonl'), '{}\n');
    const projectDir = JSON.parse((await run(a, 'audit', '--json')).stdout).dir as string;
    const userDir = join(home, '.engram', 'user', 'memory');
    await mkdir(projectDir, { recursive: true });
    await writeFile(
      join(projectDir, 'reply-language.md'),
      memory('reply language', 'user', 'The user wants replies written in Chinese'),
    );
    await writeFile(
      join(projectDir, 'release-freeze.md'),
      memory('release freeze', 'project', 'Repository A is frozen until the audit ends'),
    );
    await writeFile(
      join(projectDir, 'MEMORY.md'),
      '- [Reply language](reply-language.md) — Chinese\n- [Release freeze](release-freeze.md) — audit\n',
    );

    let prompt = '';
    server.push((request) => {
      prompt = JSON.stringify(request.body.messages.at(-1).content);
      return {
        toolUse: [
          {
            name: 'write',
            input: {
              path: join(userDir, 'reply-language.md'),
              content: memory(
                'reply language',
                'user',
                'The user wants replies written in Chinese',
              ),
            },
          },
          {
            name: 'write',
            input: {
              path: join(userDir, 'MEMORY.md'),
              content: '- [Reply language](reply-language.md) — Chinese\n',
            },
          },
          {
            name: 'write',
            input: {
              path: 'reply-language.md',
              content: memory(
                'reply language',
                'user',
                'The user wants replies written in Chinese',
                `status: revoked\nrevoked: 2026-12-01\nreason: moved to the user layer\nsuperseded_by: ${join(userDir, 'reply-language.md')}\n`,
              ),
            },
          },
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content: '- [Release freeze](release-freeze.md) — audit\n',
            },
          },
        ],
      };
    }, 'Moved the reply language to the user layer.');

    const dreamed = await run(a, 'dream', '--force', '--transcripts', transcripts, '--json');
    expect(dreamed.code, dreamed.stdout + dreamed.stderr).toBe(0);
    expect(prompt).toContain(userDir);
    const json = JSON.parse(dreamed.stdout);
    expect(json.progress.touchedIn).toEqual([
      { layer: 'user', file: 'reply-language.md', path: join(userDir, 'reply-language.md') },
      { layer: 'user', file: 'MEMORY.md', path: join(userDir, 'MEMORY.md') },
      { layer: 'project', file: 'reply-language.md', path: join(projectDir, 'reply-language.md') },
      { layer: 'project', file: 'MEMORY.md', path: join(projectDir, 'MEMORY.md') },
    ]);
    expect(json.invariants.ok).toBe(true);
    expect(json.userInvariants).toMatchObject({ ok: true, memoriesAfter: 1, indexEntriesAfter: 1 });

    const index = async (dir: string) =>
      parseIndexEntries(await readFile(join(dir, 'MEMORY.md'), 'utf8')).map((e) => e.file);
    expect(await index(userDir)).toEqual(['reply-language.md']);
    expect(await index(projectDir)).toEqual(['release-freeze.md']);
    const inB = JSON.parse((await run(b, 'list', '--json')).stdout);
    expect(inB.memories.map((m: { file: string; layer: string }) => [m.file, m.layer])).toEqual([
      ['reply-language.md', 'user'],
    ]);
  });

  it('names the layer of each written file in the human report', async () => {
    const { home, server } = machine();
    const a = join(home, 'repo-a');
    await mkdir(a);
    const transcripts = join(home, 'transcripts');
    await mkdir(transcripts);
    await writeFile(join(transcripts, 't1.jsonl'), '{}\n');
    const userDir = join(home, '.engram', 'user', 'memory');
    server.push(
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: join(userDir, 'short-replies.md'),
              content: memory('short replies', 'user', 'The user wants short replies'),
            },
          },
          {
            name: 'write',
            input: {
              path: join(userDir, 'MEMORY.md'),
              content: '- [Short replies](short-replies.md) — brevity\n',
            },
          },
        ],
      },
      'Done.',
    );
    const dreamed = await run(a, 'dream', '--force', '--transcripts', transcripts);
    expect(dreamed.code, dreamed.stdout + dreamed.stderr).toBe(0);
    expect(dreamed.stdout).toContain(`  user: ${join(userDir, 'short-replies.md')}\n`);
    expect(dreamed.stdout).toMatch(/User layer check: OK \(1 memories, 1 index lines\)/);
  });
});
