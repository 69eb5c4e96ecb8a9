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

/** Run the writer over [from, 100), SIGKILL it at a random instant; returns where it got to. */
function runUntilKilled(door: 'tool' | 'save', from: number): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', WRITER, dir, door, String(from), '100', pathToFileURL(DIST).href],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let last = from - 1;
  let timer: NodeJS.Timeout | undefined;
  child.stdout?.on('data', (d: Buffer) => {
    for (const n of d.toString().split('\n').filter(Boolean)) {
      // The kill lands at a random instant after the writer started writing.
      if (n === 'ready') timer = setTimeout(() => child.kill('SIGKILL'), 100 + Math.random() * 900);
      else last = Math.max(last, Number(n));
    }
  });
  return new Promise((done) =>
    child.once('close', () => {
      clearTimeout(timer);
      done(last + 1);
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
        const reached = await runUntilKilled(door, next);
        kills++;
        // The interrupted item is retried: a create must not meet a half file "already exists".
        next = reached;
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
