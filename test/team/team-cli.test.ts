import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, requireBuild, runCliProcess, tempRoot } from '../support/cli-process.js';
import { type ServeProcess, startServeProcess } from './support.js';

const root = await tempRoot('engram-team-cli-');
let home: string;
let db: string;
let server: ServeProcess;
let writeToken: string;

beforeAll(async () => {
  requireBuild();
  home = await root.fresh('server');
  db = join(home, 'team.db');
  server = await startServeProcess(['--port', '0', '--db', db], cliEnv(home), home);
  const created = await runCliProcess(
    ['team', 'token', 'create', '--repo', 'acme', '--write', '--db', db],
    cliEnv(home),
    home,
  );
  expect(created.code).toBe(0);
  writeToken = created.stdout.trim();
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await root.cleanup();
});

/** One person: a home, a memory directory, and the team settings in the environment. */
async function user(name: string, token = writeToken) {
  const dir = await root.fresh(name);
  const env = cliEnv(dir, {
    ENGRAM_TEAM_URL: server.url,
    ENGRAM_TEAM_TOKEN: token,
    ENGRAM_TEAM_REPO: 'acme',
  });
  const memory = join(dir, 'memory');
  const run = (...args: string[]) => runCliProcess(args, env, dir);
  return { dir, env, memory, run };
}

describe('engram team (CLI and server as processes)', () => {
  it('serve prints its address first; token create prints only the token', async () => {
    expect(server.firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(writeToken).toMatch(/^egt_[A-Za-z0-9_-]{30,}$/);
    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toEqual({ ok: true, storage: 'sqlite' });
    expect((await fetch(`${server.url}/v1/repos/acme/memories`)).status).toBe(401);
    const spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string };
    expect(spec.openapi).toMatch(/^3\./);
  });

  it('two users, one server: a team memory saved by one is recalled for the other after a pull; a personal one never leaves', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const saved = await alice.run(
      'add',
      '--dir',
      join(alice.memory, 'team'),
      '--type',
      'project',
      '--name',
      'release train',
      '--description',
      'deploys freeze on fridays; the release train leaves on thursdays',
      '--body',
      'No deploys on Fridays.\n**Why:** weekend on-call is thin.\n**How to apply:** ship by Thursday noon.',
    );
    expect(saved.code, saved.stderr).toBe(0);
    const personal = await alice.run(
      'add',
      '--dir',
      alice.memory,
      '--type',
      'user',
      '--name',
      'alice private',
      '--description',
      'alice prefers tabs and is job hunting',
      '--body',
      'Alice is quietly job hunting.',
    );
    expect(personal.code, personal.stderr).toBe(0);

    const pushed = await alice.run('team', 'push', '--dir', alice.memory, '--json');
    expect(pushed.code, pushed.stderr).toBe(0);
    const report = JSON.parse(pushed.stdout);
    expect(report.pushed).toContain('release-train.md');
    expect(report).toMatchObject({ skipped: [], batches: 1, conflicts: 0 });

    const pulled = await bob.run('team', 'pull', '--dir', bob.memory, '--json');
    expect(pulled.code, pulled.stderr).toBe(0);
    const recalled = await bob.run(
      'recall',
      'can we deploy on friday?',
      '--dir',
      bob.memory,
      '--model',
      'offline',
      '--json',
    );
    expect(recalled.code, recalled.stderr).toBe(0);
    expect(JSON.parse(recalled.stdout).selected.map((s: { file: string }) => s.file)).toContain(
      'team/release-train.md',
    );

    const all = await fetch(`${server.url}/v1/repos/acme/memories`, {
      headers: { authorization: `Bearer ${writeToken}` },
    });
    const text = await all.text();
    expect(text).toContain('release train');
    expect(text).not.toContain('job hunting');
  });

  it('push --json holds back a file with a secret (reason secret, the rule) and pushes the rest', async () => {
    const carol = await user('carol');
    const team = join(carol.memory, 'team');
    await mkdir(team, { recursive: true });
    const key = `${['AK', 'IA'].join('')}QX7ZB2K5M3N4P6R7`;
    await writeFile(
      join(team, 'aws.md'),
      `---\nname: aws\ndescription: aws access\ntype: reference\n---\nkey ${key}\n`,
    );
    await writeFile(
      join(team, 'aws-doc.md'),
      `---\nname: aws doc\ndescription: aws example\ntype: reference\n---\nkey ${['AK', 'IA'].join('')}IOSFODNN7EXAMPLE\n`,
    );
    const pushed = await carol.run('team', 'push', '--dir', carol.memory, '--json');
    expect(pushed.code, pushed.stderr).toBe(0);
    const report = JSON.parse(pushed.stdout);
    expect(report.pushed).toContain('aws-doc.md');
    expect(report.pushed).not.toContain('aws.md');
    expect(report.skipped).toEqual([
      expect.objectContaining({
        key: 'aws.md',
        reason: 'secret',
        rule: 'aws-access-token',
        line: 6,
      }),
    ]);
    expect(JSON.stringify(report)).not.toContain(key);
  });

  it('login stores the server in user settings; status says why pushes stop', async () => {
    const dave = await user('dave');
    const bare = cliEnv(dave.dir);
    const noCreds = await runCliProcess(
      ['team', 'push', '--dir', dave.memory, '--json'],
      bare,
      dave.dir,
    );
    expect(noCreds.code).toBe(1);
    expect(JSON.parse(noCreds.stdout)).toMatchObject({
      pushed: [],
      failure: { kind: 'no_credentials' },
      permanent: true,
    });
    const status = await runCliProcess(
      ['team', 'status', '--dir', dave.memory, '--json'],
      bare,
      dave.dir,
    );
    expect(JSON.parse(status.stdout).pushesStopped).toMatch(/credentials/);

    const login = await runCliProcess(
      ['team', 'login', '--url', server.url, '--token', writeToken, '--repo', 'acme'],
      bare,
      dave.dir,
    );
    expect(login.code, login.stderr).toBe(0);
    const settings = JSON.parse(await readFile(join(dave.dir, '.engram', 'settings.json'), 'utf8'));
    expect(settings.team).toEqual({ url: server.url, token: writeToken, repo: 'acme' });
    const pulled = await runCliProcess(
      ['team', 'pull', '--dir', dave.memory, '--json'],
      bare,
      dave.dir,
    );
    expect(pulled.code, pulled.stderr).toBe(0);
    const after = JSON.parse(
      (await runCliProcess(['team', 'status', '--dir', dave.memory, '--json'], bare, dave.dir))
        .stdout,
    );
    expect(after).toMatchObject({
      url: server.url,
      repo: 'acme',
      hasToken: true,
      pushesStopped: null,
    });
    expect(JSON.stringify(after)).not.toContain(writeToken);
  });

  it('rm deletes on the server only when confirmed', async () => {
    const erin = await user('erin');
    await mkdir(join(erin.memory, 'team'), { recursive: true });
    await writeFile(join(erin.memory, 'team', 'obsolete.md'), 'old news');
    expect((await erin.run('team', 'push', '--dir', erin.memory)).code).toBe(0);
    const refused = await erin.run('team', 'rm', 'obsolete.md', '--dir', erin.memory);
    expect(refused.code).toBe(2);
    const done = await erin.run(
      'team',
      'rm',
      'obsolete.md',
      '--yes',
      '--dir',
      erin.memory,
      '--json',
    );
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout).deleted).toBe('obsolete.md');
    const hashes = (await (
      await fetch(`${server.url}/v1/repos/acme/memories?view=hashes`, {
        headers: { authorization: `Bearer ${writeToken}` },
      })
    ).json()) as { checksums: Record<string, string> };
    expect(Object.keys(hashes.checksums)).not.toContain('obsolete.md');
    expect((await erin.run('team', 'rm', 'obsolete.md', '--yes', '--dir', erin.memory)).code).toBe(
      3,
    );
  });

  it('rm never deletes a file outside the team folder through a linked folder inside it', async () => {
    const frank = await user('frank');
    const shared = join(frank.memory, 'team', 'linked');
    await mkdir(shared, { recursive: true });
    await writeFile(join(shared, 'victim.md'), 'team copy');
    expect((await frank.run('team', 'push', '--dir', frank.memory)).code).toBe(0);
    // The folder is then swapped for a link to a folder outside that holds a file of that name.
    const outside = join(frank.dir, 'outside');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'victim.md'), 'outside sentinel');
    await rm(shared, { recursive: true });
    await symlink(outside, shared);
    const refused = await frank.run(
      'team',
      'rm',
      'linked/victim.md',
      '--yes',
      '--dir',
      frank.memory,
    );
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/symbolic link/);
    expect(await readFile(join(outside, 'victim.md'), 'utf8')).toBe('outside sentinel');
    // Refused before the server is asked: the key is still there for everyone.
    const hashes = (await (
      await fetch(`${server.url}/v1/repos/acme/memories?view=hashes`, {
        headers: { authorization: `Bearer ${writeToken}` },
      })
    ).json()) as { checksums: Record<string, string> };
    expect(Object.keys(hashes.checksums)).toContain('linked/victim.md');
  });

  it('a read-only token pulls but cannot push; a token for another repo sees nothing', async () => {
    const reader = await runCliProcess(
      ['team', 'token', 'create', '--repo', 'acme', '--db', db],
      cliEnv(home),
      home,
    );
    const frank = await user('frank', reader.stdout.trim());
    expect((await frank.run('team', 'pull', '--dir', frank.memory)).code).toBe(0);
    await writeFile(join(frank.memory, 'team', 'mine.md'), 'x');
    const push = await frank.run('team', 'push', '--dir', frank.memory, '--json');
    expect(push.code).toBe(1);
    expect(JSON.parse(push.stdout).failure).toMatchObject({ kind: 'http', status: 403 });
    const status = await frank.run('team', 'status', '--dir', frank.memory, '--json');
    expect(JSON.parse(status.stdout).pushesStopped).toMatch(/read_only_token/);
    const other = await runCliProcess(
      ['team', 'token', 'create', '--repo', 'other', '--write', '--db', db],
      cliEnv(home),
      home,
    );
    const res = await fetch(`${server.url}/v1/repos/acme/memories`, {
      headers: { authorization: `Bearer ${other.stdout.trim()}` },
    });
    expect(res.status).toBe(403);
  });
});

describe('engram team watch', () => {
  it('pulls at start, pushes a saved team file after the debounce, and ends on SIGTERM', async () => {
    const gina = await user('gina');
    const team = join(gina.memory, 'team');
    await mkdir(team, { recursive: true });
    const child = spawn(
      process.execPath,
      [CLI, 'team', 'watch', '--dir', gina.memory, '--debounce', '200', '--json'],
      {
        env: gina.env,
        cwd: gina.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const until = async (check: () => boolean | Promise<boolean>) => {
      for (let i = 0; i < 300 && !(await check()); i++)
        await new Promise((r) => setTimeout(r, 100));
    };
    await until(() => out.includes('"event":"pull"'));
    expect(out).toContain('"event":"pull"');
    await writeFile(join(team, 'watched.md'), 'seen by the watcher');
    const onServer = async () => {
      const res = await fetch(`${server.url}/v1/repos/acme/memories?view=hashes`, {
        headers: { authorization: `Bearer ${writeToken}` },
      });
      const body = (await res.json()) as { checksums: Record<string, string> };
      return 'watched.md' in body.checksums;
    };
    await until(onServer);
    expect(await onServer()).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('"event":"push"');
  }, 60_000);
});

describe('engram team serve shutdown', () => {
  it('ends with status 0 on SIGTERM after finishing what is in flight', async () => {
    const dir = await root.fresh('shutdown');
    const s = await startServeProcess(['--port', '0', '--db', join(dir, 't.db')], cliEnv(dir), dir);
    const health = fetch(`${s.url}/healthz`);
    expect((await health).status).toBe(200);
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).toContain('"event":"shutdown"');
  });
});
