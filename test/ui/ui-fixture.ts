import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveMemory } from '../../src/memdir/index.js';
import { createEngram } from '../../src/runtime/index.js';

/** A project with a memory directory of three memories and an outside secret next to it. */
export async function uiFixture() {
  const root = await mkdtemp(join(tmpdir(), 'engram-ui-'));
  const project = join(root, 'project');
  const dir = join(root, 'memory');
  const home = join(root, 'home');
  await mkdir(project, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(root, 'secret.md'), '---\nname: secret\n---\nOUTSIDE-SECRET\n');
  await saveMemory(dir, {
    type: 'feedback',
    name: 'postgres migrations',
    description: 'Run database migrations with the migrate script, never by hand',
    body: 'Run `npm run migrate` for postgres schema migrations.\n**Why:** hand edits broke staging.\n**How to apply:** every schema change.',
  });
  await saveMemory(dir, {
    type: 'project',
    name: 'release freeze',
    description: 'Releases are frozen during the holiday week',
    body: 'No releases during the holiday freeze.\n**Why:** nobody on call.\n**How to apply:** plan releases before it.',
  });
  await saveMemory(dir, {
    type: 'user',
    name: 'prefers tabs',
    description: 'The user prefers tabs for indentation in shell scripts',
    body: 'Use tabs in shell scripts.',
  });
  const engram = createEngram({
    cwd: project,
    memoryDir: dir,
    env: { ENGRAM_HOME: join(home, '.engram') },
    homedir: home,
  });
  // A little recall history for the charts and the memory's recall history (the default log).
  for (const query of ['postgres migrations by hand?', 'release during the holiday freeze', 'hi'])
    await engram.recall({ query });
  return { root, project, dir, home, engram };
}
