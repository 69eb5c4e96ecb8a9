// One machine for in-process CLI runs against the scripted model server: a private home (so its
// ENGRAM_HOME, and with it the user memory layer, is this test's own) and repositories inside it.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type CapturedRun, runCaptured, testIo } from '../../src/cli/test-io.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/testing/index.js';

export interface MachineWithModel {
  home: string;
  server: ScriptedModelServer;
  /** The user layer's directory on this machine. */
  userDir: string;
  run(cwd: string, ...args: string[]): Promise<CapturedRun>;
}

/** Registers this file's hooks: a fresh machine and model server per test, removed after it. */
export function machineWithModel(prefix: string): () => MachineWithModel {
  let machine: MachineWithModel | undefined;
  beforeEach(async () => {
    const server = await startScriptedModelServer();
    const home = mkdtempSync(join(tmpdir(), prefix));
    const env = {
      ENGRAM_HOME: join(home, '.engram'),
      ENGRAM_MANAGED_DIR: join(home, 'managed'),
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    };
    machine = {
      home,
      server,
      userDir: join(home, '.engram', 'user', 'memory'),
      run: (cwd, ...args) => runCaptured(args, testIo({ cwd, homedir: home, env })),
    };
  });
  afterEach(async () => {
    await machine?.server.close();
    if (machine) await rm(machine.home, { recursive: true, force: true });
    machine = undefined;
  });
  return () => {
    if (!machine) throw new Error('machineWithModel: used outside a test');
    return machine;
  };
}
