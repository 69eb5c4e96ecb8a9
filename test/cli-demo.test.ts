import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_PROMPTS } from '../src/cli/commands/demo.js';
import { runCaptured, testIo } from '../src/cli/test-io.js';

describe('engram demo (the quickstart command)', () => {
  it('prints the system prompt once and per-turn injections, with zero memories for an unrelated turn', async () => {
    const io = testIo();
    const run = await runCaptured(['demo', '--json'], io);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.systemPrompt).toContain('Contents of');
    expect(out.systemPrompt).toContain('# Persistent memory');
    expect(out.systemPrompt).toContain('- [No try/catch in handlers](no-try-catch-in-handlers.md)');
    expect(out.turns.map((t: { prompt: string }) => t.prompt)).toEqual(DEMO_PROMPTS);
    const files = out.turns.map((t: { injection: string }) =>
      [...t.injection.matchAll(/<memory file="([^"]+)"/g)].map((m) => m[1]),
    );
    expect(files).toEqual([
      ['no-try-catch-in-handlers.md'],
      ['incident-dashboard.md'],
      ['maintainer-background.md'],
      [],
    ]);
    expect(out.turns[0].injection).toMatch(/^<system-reminder>/);
  });

  it('leaves the shipped sample project untouched: it runs on a temporary copy', async () => {
    const sample = resolve(import.meta.dirname, '..', 'examples', 'sample-project');
    const tree = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const path = join(dir, e.name);
        return e.isDirectory()
          ? [`${path}/`, ...tree(path)]
          : [`${path} ${statSync(path).size} ${statSync(path).mtimeMs}`];
      });
    const before = tree(sample);
    const run = await runCaptured(['demo', '--json'], testIo());
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.project).toBe(sample);
    expect(out.memoryDir.startsWith(join(sample, 'memory'))).toBe(false);
    expect(tree(sample)).toEqual(before);
  });

  it('refuses a project directory that does not exist', async () => {
    const run = await runCaptured(['demo', '--cwd', '/nonexistent/project'], testIo());
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/No such project directory/);
  });
});
