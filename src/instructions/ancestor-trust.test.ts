/**
 * A CLAUDE.md in a folder above the project and outside the user's home (a shared `/tmp`, `/srv`)
 * may have been put there by anyone who can write the folder. Such a folder vouches for its
 * neighbours (its files may `@`-include files beside them) only when it belongs to the user or
 * root and nobody else can write it; a file there loads only when it belongs to the user or root.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ancestorTrust } from './include-roots.js';
import { loadInstructions } from './index.js';

const HOME = '/home/me';
const PROJECT = '/srv/shared/team/app';
const ME = 1000;
const base = { homedir: HOME, projectRoots: [PROJECT], uid: ME };

describe('ancestorTrust', () => {
  it('trusts folders inside the project or the home folder as before', () => {
    for (const dir of [PROJECT, `${PROJECT}/pkg`, HOME, `${HOME}/work`]) {
      expect(ancestorTrust({ ...base, dir, folder: { uid: 4242, mode: 0o41777 } })).toEqual({
        vouches: true,
      });
    }
  });

  it('lets a world-writable folder above the project vouch for nothing', () => {
    // /tmp: root's, writable by everyone (sticky or not).
    for (const mode of [0o41777, 0o40777, 0o40775]) {
      expect(ancestorTrust({ ...base, dir: '/tmp', folder: { uid: 0, mode } })).toEqual({
        owners: [ME, 0],
        vouches: false,
      });
    }
  });

  it("lets another user's folder above the project vouch for nothing", () => {
    expect(
      ancestorTrust({ ...base, dir: '/srv/shared', folder: { uid: 4242, mode: 0o40755 } }),
    ).toEqual({ owners: [ME, 0], vouches: false });
  });

  it('keeps a folder of the user or root that only they can write as a voucher', () => {
    for (const uid of [ME, 0]) {
      expect(
        ancestorTrust({ ...base, dir: '/srv/shared', folder: { uid, mode: 0o40755 } }),
      ).toEqual({ owners: [ME, 0], vouches: true });
    }
  });

  it('vouches for nothing when the folder cannot be looked at', () => {
    expect(ancestorTrust({ ...base, dir: '/srv', folder: undefined })).toEqual({
      owners: [ME, 0],
      vouches: false,
    });
  });

  it('has no ownership rule where the platform has no user ids', () => {
    expect(
      ancestorTrust({ ...base, uid: undefined, dir: '/tmp', folder: { uid: 0, mode: 0o40777 } }),
    ).toEqual({ vouches: true });
  });
});

describe('an instruction file in a shared folder above the project', () => {
  function layout(sharedMode: number) {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'engram-ancestor-')));
    const home = join(root, 'home');
    const files: Record<string, string> = {
      'shared/CLAUDE.md': 'Shared team notes.\n@./victim/notes.txt\n',
      'shared/victim/notes.txt': 'ANOTHER_USERS_NOTES\n',
      'shared/app/CLAUDE.md': 'Project rules.\n@./docs/style.md\n',
      'shared/app/docs/style.md': 'PROJECT_STYLE\n',
    };
    mkdirSync(home, { recursive: true });
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    chmodSync(join(root, 'shared'), sharedMode);
    return loadInstructions({
      cwd: join(root, 'shared', 'app'),
      homedir: home,
      env: { ENGRAM_HOME: join(home, '.engram'), ENGRAM_MANAGED_DIR: join(root, 'managed') },
    });
  }

  it('loads from a world-writable folder but opens none of its neighbours to includes', async () => {
    const result = await layout(0o1777);
    expect(result.prompt).toContain('Shared team notes.');
    expect(result.prompt).not.toContain('ANOTHER_USERS_NOTES');
    expect(result.reports).toContainEqual(
      expect.objectContaining({ kind: 'refused', path: expect.stringMatching(/victim/) }),
    );
    // Positive control: the project's own include still loads.
    expect(result.prompt).toContain('PROJECT_STYLE');
  });

  it('still lets a folder only its owner can write include its neighbours', async () => {
    const result = await layout(0o755);
    expect(result.prompt).toContain('ANOTHER_USERS_NOTES');
    expect(result.prompt).toContain('PROJECT_STYLE');
  });
});
