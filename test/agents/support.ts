// Shared setup for the agent-memory tests: a git repository, a private home, the built CLI.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  cliEnv,
  type NodeRun,
  requireBuild,
  runCliProcess,
  tempRoot,
} from '../support/cli-process.js';

let temp: Awaited<ReturnType<typeof tempRoot>>;
beforeAll(async () => {
  requireBuild();
  temp = await tempRoot('engram-agents-');
});
afterAll(() => temp.cleanup());

export interface Workspace {
  repo: string;
  home: string;
  env: NodeJS.ProcessEnv;
  cli(args: string[]): Promise<NodeRun>;
  json<T = Record<string, unknown>>(args: string[]): Promise<T>;
  /** Adds a memory through the CLI; `agent` undefined saves to the main memory. */
  add(agent: string | undefined, name: string, description: string, scope?: string): Promise<void>;
  /** The files `engram recall --json` selects for `query`. */
  recalled(query: string, agent?: string): Promise<string[]>;
}

export async function workspace(): Promise<Workspace> {
  const root = await temp.fresh('ws');
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  mkdirSync(repo, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const env = cliEnv(home);
  const cli = (args: string[]) => runCliProcess(args, env, repo);
  const json = async <T>(args: string[]): Promise<T> => {
    const run = await cli([...args, '--json']);
    if (run.code !== 0)
      throw new Error(`engram ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  };
  return {
    repo,
    home,
    env,
    cli,
    json,
    async add(agent, name, description, scope) {
      const run = await cli([
        'add',
        '--type',
        'feedback',
        '--name',
        name,
        '--description',
        description,
        '--body',
        `${description}.\n**Why:** it went wrong once.\n**How to apply:** every time.`,
        ...(agent !== undefined ? ['--agent', agent] : []),
        ...(scope !== undefined ? ['--scope', scope] : []),
      ]);
      if (run.code !== 0) throw new Error(`add failed (${run.code}): ${run.stderr}`);
    },
    async recalled(query, agent) {
      const out = await json<{ selected: Array<{ file: string }> }>([
        'recall',
        query,
        '--model',
        'offline',
        ...(agent !== undefined ? ['--agent', agent] : []),
      ]);
      return out.selected.map((m) => m.file).sort();
    },
  };
}

/** Writes a committed snapshot for `agent`: memory files, their index, and a version. */
export function writeSnapshot(
  repo: string,
  agent: string,
  memories: Record<string, string>,
  updatedAt: string,
): string {
  const dir = join(repo, '.engram', 'agent-memory-snapshots', agent);
  mkdirSync(dir, { recursive: true });
  const index: string[] = [];
  for (const [file, description] of Object.entries(memories)) {
    writeFileSync(
      join(dir, file),
      `---\nname: ${file.replace(/\.md$/, '')}\ndescription: ${description}\ntype: reference\n---\n${description}.\n`,
    );
    index.push(`- [${file}](${file}) — ${description}`);
  }
  writeFileSync(join(dir, 'MEMORY.md'), `${index.join('\n')}\n`);
  writeFileSync(join(dir, 'snapshot.json'), `${JSON.stringify({ updatedAt })}\n`);
  return dir;
}
