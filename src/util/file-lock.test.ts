import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  clearDeadClaims,
  LOCK_QUEUE_FACTOR,
  nextLockWait,
  readLockClaims,
  withFileLock,
} from './file-lock.js';

const LOCK_MODULE = join(import.meta.dirname, '..', '..', 'dist', 'util', 'file-lock.js');

beforeAll(() => {
  if (!existsSync(LOCK_MODULE))
    throw new Error(
      'These tests run the built lock in child processes: run `npm run build` first.',
    );
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A child takes the lock `rounds` times and exits right after its last release: exiting holders
 * are what made the old lock misjudge a live lock as dead. Inside, it creates a marker with O_EXCL:
 * a second holder at the same moment finds the marker and records a violation.
 */
const HOLDER = `
const [lockPath, marker, rounds, modulePath, holdMs, kind] = process.argv.slice(1);
const { withFileLock } = await import(modulePath);
// A one-shot process (the hook, the CLI) takes the lock with synchronous file calls.
if (kind === 'one-shot') (await import(modulePath.replace(/file-lock\\.js$/, 'process-kind.js'))).markOneShotProcess();
const { link, unlink, appendFile, readFile, writeFile } = await import('node:fs/promises');
// The marker appears whole or not at all (a hard link of a file already holding the pid): a holder
// killed between creating it and writing its pid must not leave an empty marker that every later
// holder would count as a second holder.
const mine = marker + '.' + process.pid;
await writeFile(mine, String(process.pid));
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
for (let i = 0; i < Number(rounds); i++) {
  await withFileLock(lockPath, async () => {
    for (;;) {
      try {
        await link(mine, marker);
        break;
      } catch {
        const pid = Number(await readFile(marker, 'utf8').catch(() => '0'));
        // The marker of a holder killed inside the lock is not a second holder.
        if (pid > 0 && !alive(pid)) { await unlink(marker).catch(() => {}); continue; }
        await appendFile(marker + '.violations', process.pid + '\\n');
        return;
      }
    }
    if (Number(holdMs) > 0) await new Promise((r) => setTimeout(r, Number(holdMs)));
    await unlink(marker);
  }, { timeoutMs: 60_000 });
}
await unlink(mine);
`;

function holder(
  lockPath: string,
  marker: string,
  rounds: number,
  holdMs = 0,
  kind: 'library' | 'one-shot' = 'library',
): ChildProcess & { done: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      HOLDER,
      lockPath,
      marker,
      String(rounds),
      pathToFileURL(LOCK_MODULE).href,
      String(holdMs),
      kind,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const done = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  return Object.assign(child, { done });
}

async function violations(marker: string): Promise<number> {
  const text = await readFile(`${marker}.violations`, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).length;
}

describe('the cross-process lock', () => {
  it('never admits two holders while holders keep exiting and others wait', async () => {
    const lockPath = join(dir, '.lock');
    const marker = join(dir, 'inside');
    // Short-lived processes that exit right after their last release, two waves of 32: sized so
    // the old rename-aside lock admitted two holders in most runs of this test.
    for (let wave = 0; wave < 2; wave++) {
      const children = Array.from({ length: 32 }, () => holder(lockPath, marker, 2, 1));
      const codes = await Promise.all(children.map((c) => c.done));
      expect(codes.every((c) => c === 0)).toBe(true);
    }
    expect(await violations(marker)).toBe(0);
    expect(await readLockClaims(lockPath)).toEqual([]);
  }, 180_000);

  it('never admits two holders when one-shot holders (synchronous calls) and others contend', async () => {
    const lockPath = join(dir, '.lock');
    const marker = join(dir, 'inside');
    const children = Array.from({ length: 32 }, (_, i) =>
      holder(lockPath, marker, 2, 1, i % 2 === 0 ? 'one-shot' : 'library'),
    );
    const codes = await Promise.all(children.map((c) => c.done));
    expect(codes.every((c) => c === 0)).toBe(true);
    expect(await violations(marker)).toBe(0);
    expect(await readLockClaims(lockPath)).toEqual([]);
  }, 180_000);

  it('takes over from holders killed at random instants, and only from them', async () => {
    const lockPath = join(dir, '.lock');
    const marker = join(dir, 'inside');
    // Half of each kind: a one-shot holder (synchronous calls) killed mid-step leaves what any does.
    const kind = (i: number) => (i % 2 === 0 ? 'one-shot' : 'library');
    const survivors = Array.from({ length: 8 }, (_, i) => holder(lockPath, marker, 30, 1, kind(i)));
    let kills = 0;
    for (let i = 0; i < 10; i++) {
      const victim = holder(lockPath, marker, 1000, 3, kind(i));
      await new Promise((r) => setTimeout(r, 150 + Math.random() * 150));
      victim.kill('SIGKILL');
      await victim.done;
      kills++;
    }
    const codes = await Promise.all(survivors.map((c) => c.done));
    expect(kills).toBe(10);
    expect(codes.every((c) => c === 0)).toBe(true);
    expect(await violations(marker)).toBe(0);
    // A killed holder's claim may remain; it is proven dead and cleared.
    await clearDeadClaims(lockPath);
    expect(await readLockClaims(lockPath)).toEqual([]);
  }, 180_000);

  it('is re-entrant within one call chain and serialises separate ones', async () => {
    const lockPath = join(dir, '.lock');
    const order: string[] = [];
    await Promise.all([
      withFileLock(lockPath, async () => {
        order.push('a-in');
        await withFileLock(lockPath, async () => order.push('a-nested'));
        await new Promise((r) => setTimeout(r, 30));
        order.push('a-out');
      }),
      withFileLock(lockPath, async () => {
        order.push('b-in');
        order.push('b-out');
      }),
    ]);
    const a = order.indexOf('a-in');
    const b = order.indexOf('b-in');
    const first = a < b ? ['a-in', 'a-nested', 'a-out'] : ['b-in', 'b-out'];
    expect(order.slice(0, first.length)).toEqual(first);
  });

  it('a leaf lock (no re-entrancy bookkeeping) still serialises call chains and defers to its holder', async () => {
    const lockPath = join(dir, '.lock');
    const order: string[] = [];
    const chain = (name: string) =>
      withFileLock(
        lockPath,
        async () => {
          order.push(`${name}-in`);
          await new Promise((r) => setTimeout(r, 20));
          order.push(`${name}-out`);
        },
        { leaf: true },
      );
    await Promise.all([chain('a'), chain('b'), chain('c')]);
    for (let i = 0; i < order.length; i += 2) {
      expect(order[i + 1]).toBe(order[i]!.replace('-in', '-out'));
    }
    expect(order).toHaveLength(6);
    // Inside a chain that holds the lock (re-entrantly), a leaf call on it just runs.
    await withFileLock(lockPath, async () => {
      await withFileLock(lockPath, async () => order.push('nested'), { leaf: true });
    });
    expect(order.at(-1)).toBe('nested');
    expect(await readLockClaims(lockPath)).toEqual([]);
  });

  it('waits for a live holder instead of judging it by age, and says who holds it', async () => {
    const lockPath = join(dir, '.lock');
    // A claim of this very process (alive) that is not ours to release.
    await mkdir(lockPath);
    const claims = await new Promise<string>((resolve) => {
      void withFileLock(join(dir, '.probe'), async () => {
        resolve((await readdir(join(dir, '.probe')))[0] ?? '');
      });
    });
    await writeFile(join(lockPath, claims.replace(/-[0-9a-f]+$/, '-abcdef')), '');
    await expect(withFileLock(lockPath, async () => 1, { timeoutMs: 200 })).rejects.toMatchObject({
      code: 'lock_timeout',
      message: expect.stringContaining(`PID ${process.pid}, still running`),
    });
  });

  it('a lock that changes hands restarts the wait; one holder keeps it; the queue has a ceiling', () => {
    const at = (now: number) => ({ now, started: 0, timeoutMs: 100 });
    let wait = nextLockWait({ holders: '', deadline: 100 }, ['b-1', 'a-1'], at(10));
    expect(wait).toEqual({ holders: 'a-1,b-1', deadline: 110 });
    // The same holders (in any order) do not move the deadline: a hung holder times the waiter out.
    expect(nextLockWait(wait, ['a-1', 'b-1'], at(90))).toBe(wait);
    wait = nextLockWait(wait, ['c-1'], at(105));
    expect(wait.deadline).toBe(205);
    // A queue that keeps moving is still bounded.
    const late = nextLockWait(wait, ['d-1'], at(100 * LOCK_QUEUE_FACTOR - 10));
    expect(late.deadline).toBe(100 * LOCK_QUEUE_FACTOR);
  });

  it('clears a claim whose PID is dead and a lock file left by an older engram', async () => {
    const lockPath = join(dir, '.lock');
    await mkdir(lockPath);
    const probe = await new Promise<string>((resolve) => {
      void withFileLock(join(dir, '.probe'), async () => {
        resolve((await readdir(join(dir, '.probe')))[0] ?? '');
      });
    });
    // PID 2^22 + 1 is above Linux's pid_max ceiling: no process can have it.
    const dead = probe.replace(/^\d+-[0-9x]+/, '4194305-1');
    await writeFile(join(lockPath, dead), '');
    expect(await withFileLock(lockPath, async () => 'ran')).toBe('ran');
    const legacy = join(dir, '.legacy.lock');
    await writeFile(legacy, '4194305');
    expect(await withFileLock(legacy, async () => 'ran too')).toBe('ran too');
  });
});
