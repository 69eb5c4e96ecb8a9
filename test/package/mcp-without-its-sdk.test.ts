/**
 * The MCP SDK is an optional peer dependency: a project that installed engram without it and
 * imports `engram/mcp` learns which package to install, not Node's bare "Cannot find package".
 * Run against a real install layout (engram's package.json and dist copied into a temp
 * node_modules, every other package linked), with and without the SDK.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, requireBuild } from '../support/cli-process.js';

const SDK = '@modelcontextprotocol/sdk';
const roots: string[] = [];

beforeAll(requireBuild);
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A project with engram installed, and every package of this repository but (maybe) the SDK. */
function installedProject(withSdk: boolean): string {
  const root = mkdtempSync(join(tmpdir(), 'engram-no-sdk-'));
  roots.push(root);
  const modules = join(root, 'node_modules');
  const engram = join(modules, 'engram');
  mkdirSync(engram, { recursive: true });
  cpSync(join(REPO, 'package.json'), join(engram, 'package.json'));
  cpSync(join(REPO, 'dist'), join(engram, 'dist'), { recursive: true });
  const source = join(REPO, 'node_modules');
  for (const name of readdirSync(source)) {
    if (name === '.bin' || name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      mkdirSync(join(modules, name), { recursive: true });
      for (const inner of readdirSync(join(source, name))) {
        if (!withSdk && `${name}/${inner}` === SDK) continue;
        symlinkSync(join(source, name, inner), join(modules, name, inner));
      }
    } else symlinkSync(join(source, name), join(modules, name));
  }
  return root;
}

async function importMcp(cwd: string) {
  const script =
    "const m = await import('engram/mcp'); console.log(typeof m.createEngramMcpServer);";
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd } },
    );
    return { code: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('engram/mcp without the MCP SDK installed', () => {
  it('imports in a project that installed the SDK', { timeout: 60_000 }, async () => {
    const run = await importMcp(installedProject(true));
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function');
  });

  it('fails with the package to install and the command that installs it', {
    timeout: 60_000,
  }, async () => {
    const run = await importMcp(installedProject(false));
    expect(run.code).not.toBe(0);
    // Node prints the thrown error's own line first (its cause, Node's message, comes after).
    const thrown = run.stderr.split('\n').find((line) => /^\w*Error\b/.test(line));
    expect(thrown).toMatch(/needs the package @modelcontextprotocol\/sdk, which is not installed/);
    expect(thrown).toContain('(npm install @modelcontextprotocol/sdk)');
  });
});
