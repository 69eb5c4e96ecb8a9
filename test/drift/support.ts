// Shared setup for the drift acceptance tests: a git project in a temp dir, a memory directory
// beside it, and the built CLI as a child process with a private home.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cliEnv, type NodeRun, requireBuild, runCliProcess } from '../support/cli-process.js';

export { requireBuild };

export interface Workspace {
  project: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  engram(args: string[]): Promise<NodeRun>;
  json(args: string[]): Promise<Record<string, unknown>>;
  git(...args: string[]): string;
  memory(file: string, fields: Record<string, string>, body: string): void;
}

export function workspace(files: Record<string, string>): Workspace {
  const root = mkdtempSync(join(tmpdir(), 'engram-drift-'));
  const project = join(root, 'project');
  const dir = join(root, 'memory');
  mkdirSync(dir, { recursive: true });
  const env = cliEnv(join(root, 'home'), {
    GIT_AUTHOR_NAME: 'Fixture',
    GIT_AUTHOR_EMAIL: 'fixture@example.invalid',
    GIT_COMMITTER_NAME: 'Fixture',
    GIT_COMMITTER_EMAIL: 'fixture@example.invalid',
    GIT_CONFIG_NOSYSTEM: '1',
  });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), text);
  }
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: project, env, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  const engram = (args: string[]) => runCliProcess([...args, '--dir', dir], env, project);
  return {
    project,
    dir,
    env,
    engram,
    git,
    async json(args) {
      const run = await engram([...args, '--json']);
      if (run.stdout.trim() === '')
        throw new Error(`no JSON from engram ${args.join(' ')}: ${run.stderr}`);
      return JSON.parse(run.stdout) as Record<string, unknown>;
    },
    memory(file, fields, body) {
      const head = Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n');
      writeFileSync(join(dir, file), `---\n${head}\n---\n${body}\n`);
    },
  };
}
