import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditMemoryDir, listMemoryFiles } from '../../src/memdir/index.js';

const DIST = resolve(import.meta.dirname, '../../dist');

beforeAll(() => {
  if (!existsSync(join(DIST, 'cli', 'main.js'))) throw new Error('run `npm run build` first');
});

let dir: string;
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Big enough that a kill lands inside a write; each file says how long it must be. */
const WRITER = `
const [dir, door, from, to, dist] = process.argv.slice(1);
const pad = (i) => 'x'.repeat(40_000 + (i % 7) * 20_000);
const text = (i) => { const b = pad(i); return '---\\nname: m' + i + '\\ndescription: fact ' + i + '\\ntype: project\\nsize: ' + b.length + '\\n---\\n' + b + '\\n'; };
if (door === 'tool') {
  const { createMemoryToolHandlers } = await import(dist + '/memory-tool/index.js');
  const tool = createMemoryToolHandlers({ memoryDir: dir });
  process.stdout.write('ready\\n');
  for (let i = Number(from); i < Number(to); i++) {
    try {
      await tool.create({ command: 'create', path: '/memories/tool-' + i + '.md', file_text: text(i) });
    } catch (error) {
      // Only the item a kill interrupted after its create finished may exist already (whole).
      if (i !== Number(from) || !/already exists/.test(error.message)) throw error;
    }
    process.stdout.write(i + '\\n');
  }
} else {
  const { saveMemory } = await import(dist + '/memdir/index.js');
  process.stdout.write('ready\\n');
  for (let i = Number(from); i < Number(to); i++) {
    const b = pad(i);
    await saveMemory(dir, { name: 'm' + i, description: 'fact ' + i, type: 'project', body: 'size ' + b.length + '\\n' + b, file: 'save-' + i + '.md' });
    process.stdout.write(i + '\\n');
  }
}
`;

/**
 * Run the writer over [from, 100) and SIGKILL it at a random instant inside its next few writes:
 * after a random number of finished items (so a kill always finds work left, however fast or slow
 * the machine is), plus a random few milliseconds (so it lands inside a write, not between two).
 * Returns where it got to and whether the kill landed before the writer finished.
 */
function runUntilKilled(
  door: 'tool' | 'save',
  from: number,
): Promise<{ reached: number; killed: boolean }> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', WRITER, dir, door, String(from), '100', pathToFileURL(DIST).href],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let last = from - 1;
  let written = 0;
  const killAfter = 1 + Math.floor(Math.random() * 12);
  let timer: NodeJS.Timeout | undefined;
  child.stdout?.on('data', (d: Buffer) => {
    for (const n of d.toString().split('\n').filter(Boolean)) {
      if (n === 'ready') continue;
      last = Math.max(last, Number(n));
      if (++written === killAfter)
        timer = setTimeout(() => child.kill('SIGKILL'), Math.random() * 15);
    }
  });
  return new Promise((done) =>
    child.once('close', (_code, signal) => {
      clearTimeout(timer);
      done({ reached: last + 1, killed: signal === 'SIGKILL' });
    }),
  );
}

/** Every file a scan lists as a memory is whole: its declared size matches its content. */
function partials(files: string[]): string[] {
  return files.filter((f) => {
    const text = readFileSync(join(dir, f), 'utf8');
    const declared = /size:? (\d+)/.exec(text)?.[1];
    const body = /\n(x+)\n?$/.exec(text)?.[1] ?? '';
    return declared === undefined || Number(declared) !== body.length;
  });
}

describe('kill -9 at random points of 100 memory-tool creates and 100 saves', () => {
  for (const door of ['tool', 'save'] as const) {
    it(`${door}: no partial file is ever visible as a memory, and a retry of an interrupted create succeeds`, async () => {
      dir = await mkdtemp(join(tmpdir(), `engram-kill-${door}-`));
      let next = 0;
      let kills = 0;
      while (next < 100) {
        const run = await runUntilKilled(door, next);
        if (run.killed) kills++;
        // The interrupted item is retried: a create must not meet a half file "already exists".
        next = run.reached;
      }
      const files = await listMemoryFiles(dir);
      expect(files).toHaveLength(100);
      expect(partials(files)).toEqual([]);
      expect(kills).toBeGreaterThan(1);
      // What the kills left behind is temp files, which the audit names and --fix removes.
      const fixed = await auditMemoryDir(dir, { fix: true });
      expect(fixed.problems.filter((p) => p.kind === 'leftover_temp')).toEqual([]);
      expect(fixed.problems.filter((p) => p.kind === 'truncated_body')).toEqual([]);
    }, 240_000);
  }
});
