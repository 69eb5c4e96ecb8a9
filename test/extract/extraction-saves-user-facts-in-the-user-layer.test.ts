/**
 * Extraction with two layers: a fact about the person lands in the user directory (which every
 * project reads), a fact about the project in the project's, each with its own index line; the
 * run says where each went; repository B recalls the user fact and never the project fact.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIndexEntries } from '../../src/memdir/index-file.js';
import { machineWithModel } from '../support/machine-with-model.js';

const memory = (name: string, description: string, type: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

const USER_FACT = memory(
  'answer in Chinese',
  'The user wants every reply written in Chinese',
  'user',
  'Reply in Chinese.\n**Why:** it is the language the user reads fastest.\n**How to apply:** every reply, in every project.',
);
const PROJECT_FACT = memory(
  'release freeze',
  'Repository A has a release freeze until the audit ends',
  'project',
  'No releases of repository A before the audit ends.\n**Why:** the auditors asked for it.\n**How to apply:** refuse release tasks.',
);

/** One conversation with one fact of each kind. */
const TRANSCRIPT = JSON.stringify([
  {
    id: 'u-1',
    role: 'user',
    content:
      'Please always answer me in Chinese. Also: this repository has a release freeze until the audit ends.',
  },
  { id: 'a-1', role: 'assistant', content: [{ type: 'text', text: '好的。' }] },
]);

const machine = machineWithModel('engram-extract-layers-');
const run = (cwd: string, ...args: string[]) => machine().run(cwd, ...args);

async function repo(name: string): Promise<{ dir: string; memoryDir: string }> {
  const dir = join(machine().home, name);
  await mkdir(dir);
  const audit = JSON.parse((await run(dir, 'audit', '--json')).stdout);
  return { dir, memoryDir: audit.dir };
}

/** The directory the prompt names after `label`, so the script writes where it was told to. */
function dirNamed(prompt: string, label: string): string {
  const found = new RegExp(`${label} \`([^\`]+)\``).exec(prompt);
  if (!found?.[1]) throw new Error(`the prompt names no ${label}`);
  return found[1];
}

describe('extraction with a user layer', () => {
  it('saves a user fact in the user layer and a project fact in the project, and says where', async () => {
    const { home, server } = machine();
    const a = await repo('repo-a');
    const b = await repo('repo-b');
    const userDir = join(home, '.engram', 'user', 'memory');
    let prompt = '';
    server.push((request) => {
      prompt = JSON.stringify(request.body.messages.at(-1).content);
      const user = dirNamed(prompt, 'The user directory');
      const project = dirNamed(prompt, 'The project directory');
      return {
        toolUse: [
          {
            name: 'write',
            input: { path: join(user, 'answer-in-chinese.md'), content: USER_FACT },
          },
          {
            name: 'write',
            input: {
              path: join(user, 'MEMORY.md'),
              content: '- [Answer in Chinese](answer-in-chinese.md) — reply language\n',
            },
          },
          {
            name: 'write',
            input: { path: join(project, 'release-freeze.md'), content: PROJECT_FACT },
          },
          {
            name: 'write',
            input: {
              path: join(project, 'MEMORY.md'),
              content: '- [Release freeze](release-freeze.md) — until the audit ends\n',
            },
          },
          // Beside the user directory, not in it: refused like any other path outside the roots.
          {
            name: 'write',
            input: { path: join(home, '.engram', 'user', 'stray.md'), content: USER_FACT },
          },
        ],
      };
    }, 'Saved both.');
    const transcript = join(home, 'session.json');
    await writeFile(transcript, TRANSCRIPT);

    const extracted = await run(a.dir, 'extract', '--transcript', transcript, '--json');
    expect(extracted.code, extracted.stderr).toBe(0);
    expect(prompt).toContain(a.memoryDir);
    expect(prompt).toContain(userDir);
    const json = JSON.parse(extracted.stdout);
    expect(json).toMatchObject({ status: 'saved', memoryDir: a.memoryDir, userDir });
    expect(json.savedTo).toEqual([
      { layer: 'user', file: 'answer-in-chinese.md', path: join(userDir, 'answer-in-chinese.md') },
      {
        layer: 'project',
        file: 'release-freeze.md',
        path: join(a.memoryDir, 'release-freeze.md'),
      },
    ]);
    expect(json.saved).toEqual([join(userDir, 'answer-in-chinese.md'), 'release-freeze.md']);
    expect(json.notice).toBe(
      `Saved 2 memories: answer-in-chinese.md (user: ${join(userDir, 'answer-in-chinese.md')}), release-freeze.md (project)`,
    );
    expect(json.warnings).toEqual([]);
    await expect(readFile(join(home, '.engram', 'user', 'stray.md'))).rejects.toThrow();

    // Each layer holds its own file and its own index line, nothing of the other.
    const index = async (dir: string) =>
      parseIndexEntries(await readFile(join(dir, 'MEMORY.md'), 'utf8')).map((e) => e.file);
    expect(await index(userDir)).toEqual(['answer-in-chinese.md']);
    expect(await index(a.memoryDir)).toEqual(['release-freeze.md']);
    expect(await readFile(join(userDir, 'answer-in-chinese.md'), 'utf8')).toBe(USER_FACT);

    const list = JSON.parse((await run(b.dir, 'list', '--json')).stdout);
    expect(list.memories.map((m: { file: string; layer: string }) => [m.file, m.layer])).toEqual([
      ['answer-in-chinese.md', 'user'],
    ]);
    // The human list marks what came from the user layer; project lines look as they always did.
    expect((await run(a.dir, 'list')).stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(
        /^- \[project\] release-freeze\.md .*: Repository A has a release freeze until the audit ends$/,
      ),
      expect.stringMatching(/^- \[user\] answer-in-chinese\.md .* \(user layer\)$/),
    ]);
    const inB = JSON.parse(
      (
        await run(
          b.dir,
          'recall',
          'which language should replies be written in, and is there a release freeze',
          '--model',
          'offline',
          '--json',
        )
      ).stdout,
    );
    expect(inB.selected.map((m: { file: string; layer: string }) => [m.file, m.layer])).toEqual([
      ['answer-in-chinese.md', 'user'],
    ]);
    const inA = JSON.parse(
      (await run(a.dir, 'recall', 'is there a release freeze', '--model', 'offline', '--json'))
        .stdout,
    );
    expect(inA.selected.map((m: { file: string }) => m.file)).toContain('release-freeze.md');
  });

  it('prints the layer and path of a user-layer save in the human report', async () => {
    const { home, server } = machine();
    const a = await repo('repo-a');
    const userDir = join(home, '.engram', 'user', 'memory');
    server.push(
      {
        toolUse: [
          {
            name: 'write',
            input: { path: join(userDir, 'answer-in-chinese.md'), content: USER_FACT },
          },
          {
            name: 'write',
            input: {
              path: join(userDir, 'MEMORY.md'),
              content: '- [Chinese](answer-in-chinese.md) — x\n',
            },
          },
        ],
      },
      'Saved.',
    );
    const transcript = join(home, 'session.json');
    await writeFile(transcript, TRANSCRIPT);
    const extracted = await run(a.dir, 'extract', '--transcript', transcript);
    expect(extracted.code, extracted.stderr).toBe(0);
    expect(extracted.stdout).toBe(
      `Saved 1 memory: answer-in-chinese.md (user: ${join(userDir, 'answer-in-chinese.md')})\ncursor: a-1\n`,
    );
  });
});
