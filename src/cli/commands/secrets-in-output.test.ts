import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveModel } from '../../llm/resolve-model.js';
import { parseFrontmatter } from '../../memdir/frontmatter.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/index.js';
import { runCaptured, testIo } from '../test-io.js';

const PASSWORD = 'pw-9f3Kq2xZ';
const SECRET = 'sk-ant-api03-SECRETVALUE1234567890';

let server: ScriptedModelServer;
let root: string;
beforeEach(async () => {
  server = await startScriptedModelServer();
  root = await mkdtemp(join(tmpdir(), 'engram-secrets-'));
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

/** The scripted server's base URL with `user:password@` put in front of the host. */
function withCredentials(url: string): string {
  return url.replace('://', `://alice:${PASSWORD}@`);
}

describe('a base URL is printed without its credentials', () => {
  it('in model descriptions', () => {
    for (const env of [
      { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'https://alice:pw-9f3Kq2xZ@proxy.example/v1' },
      { OPENAI_BASE_URL: 'http://alice:pw-9f3Kq2xZ@10.0.0.5:8080/v1', ENGRAM_MODEL: 'openai:m' },
    ]) {
      const r = resolveModel({ env });
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(r.description).not.toContain(PASSWORD);
      expect(r.description).toMatch(/ at https?:\/\/\*\*\*@(proxy\.example|10\.0\.0\.5:8080)\/v1$/);
    }
  });

  it.each([['--json'], []])('by engram models check %s', async (...flags) => {
    const io = testIo();
    io.env = {
      ...io.env,
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: withCredentials(server.anthropicBaseURL),
      ENGRAM_MODEL: 'anthropic:claude-test',
    };
    server.push({ text: 'OK' });
    const run = await runCaptured(['models', 'check', '--timeout', '20000', ...flags], io);
    const out = run.stdout + run.stderr;
    expect(out).not.toContain(PASSWORD);
    expect(out).toContain('***@');
  });

  it('by engram extract --json', async () => {
    const transcript = join(root, 'session.jsonl');
    await writeFile(
      transcript,
      `${JSON.stringify({ uuid: 'u-1', parentUuid: null, type: 'user', sessionId: 's', cwd: root, message: { role: 'user', content: 'Always use pnpm here.' } })}\n`,
    );
    const io = testIo();
    io.env = {
      ...io.env,
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: withCredentials(server.openaiBaseURL),
      ENGRAM_MODEL: 'openai:gpt-test',
    };
    server.push({ text: 'nothing to save' });
    const run = await runCaptured(
      ['extract', '--transcript', transcript, '--dir', join(root, 'memory'), '--json'],
      io,
    );
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
    const json = JSON.parse(run.stdout);
    expect(json.model).toContain('***@');
  });
});

describe('YAML problems name the file and line, never the text', () => {
  const BAD = `---\nname: deploy\ntoken: !secret ${SECRET}\n---\nbody\n`;
  const BROKEN = `---\nname: deploy\ntoken: ${SECRET}: x: y\nother: 1\n---\nbody\n`;

  it('parseFrontmatter prints nothing and reports a line number', () => {
    const warn = vi.spyOn(process, 'emitWarning');
    const stderr = vi.spyOn(process.stderr, 'write');
    const console_ = vi.spyOn(console, 'warn');
    try {
      const a = parseFrontmatter(BAD);
      const b = parseFrontmatter(BROKEN);
      expect(warn).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
      expect(console_).not.toHaveBeenCalled();
      expect(a.error).toBeUndefined();
      expect(b.error).toBe('YAML error BLOCK_AS_IMPLICIT_KEY at line 3');
      expect(b.error).not.toContain(SECRET);
    } finally {
      warn.mockRestore();
      stderr.mockRestore();
      console_.mockRestore();
    }
  });

  it('engram doctor names the file and line of malformed frontmatter without echoing it', async () => {
    const dir = join(root, 'memory');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'deploy.md'), BROKEN);
    await writeFile(join(dir, 'tagged.md'), BAD);
    await writeFile(
      join(dir, 'MEMORY.md'),
      '- [Deploy](deploy.md) — x\n- [Tagged](tagged.md) — y\n',
    );
    const run = await runCaptured(['doctor', '--dir', dir], testIo());
    const out = run.stdout + run.stderr;
    expect(out).not.toContain(SECRET);
    expect(out).toMatch(
      /deploy\.md has frontmatter that is not valid YAML \(YAML error [A-Z_]+ at line 3\)/,
    );
  });
});
