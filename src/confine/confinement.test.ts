import { link, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ConfinementError, createConfinement } from './index.js';

let top: string;
let root: string;
let outside: string;

beforeEach(async () => {
  top = await mkdtemp(join(tmpdir(), 'engram-confine-'));
  root = join(top, 'memory');
  outside = join(top, 'outside');
  await mkdir(join(root, 'archive', '2024', 'q1'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, 'secret.txt'), 'outside secret\n');
});

const memory = () => createConfinement({ roots: [{ path: root, write: true }] });

async function refused(p: Promise<unknown>): Promise<string> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfinementError);
  return (error as ConfinementError).reason;
}

describe('createConfinement', () => {
  it('writes and reads inside the root, relative and absolute (positive controls)', async () => {
    const c = memory();
    await c.writeText('a.md', 'A');
    await c.writeText(join(root, 'deep', 'b.md'), 'B');
    await c.writeText('archive/../c.md', 'C');
    expect((await c.readText('a.md')).text).toBe('A');
    expect((await c.readText(join(root, 'deep/b.md'))).text).toBe('B');
    expect(await readFile(join(root, 'c.md'), 'utf8')).toBe('C');
    expect((await c.list('.')).map((e) => e.name).sort()).toEqual([
      'a.md',
      'archive',
      'c.md',
      'deep',
    ]);
  });

  it('refuses traversal, sibling prefixes and absolute paths elsewhere', async () => {
    const c = memory();
    await refused(c.writeText('../outside/x.md', 'x'));
    await refused(c.writeText(`${root}-evil/x.md`, 'x'));
    await refused(c.writeText('/etc/passwd', 'x'));
    await refused(c.readText('../outside/secret.txt'));
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('resolves `..` after a link physically for the check AND the write', async () => {
    await symlink('archive/2024/q1', join(root, 'latest'));
    const c = memory();
    // latest/.. is archive/2024 physically; three more climbs leave the root.
    await refused(c.writeText('latest/../../../../outside/x.md', 'x'));
    // Inside after the physical walk: lands where the kernel would put it, and nowhere else.
    await c.writeText('latest/../note.md', 'n');
    expect(await readFile(join(root, 'archive', '2024', 'note.md'), 'utf8')).toBe('n');
  });

  it('never follows a link out: folder, file, parent, dangling, absolute', async () => {
    await symlink(outside, join(root, 'out'));
    await symlink(join(outside, 'secret.txt'), join(root, 'leak.md'));
    await symlink(join(outside, 'nothing-yet.md'), join(root, 'dangling.md'));
    const c = memory();
    await refused(c.writeText('out/x.md', 'x'));
    await refused(c.readText('out/secret.txt'));
    await refused(c.readText('leak.md'));
    await refused(c.writeText('leak.md', 'x'));
    await refused(c.writeText('dangling.md', 'x'));
    await refused(c.remove('out/secret.txt'));
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
  });

  it('follows a link that stays inside for reads only', async () => {
    await writeFile(join(root, 'real.md'), 'R');
    await symlink('real.md', join(root, 'alias.md'));
    const c = memory();
    expect((await c.readText('alias.md')).text).toBe('R');
    expect(await refused(c.writeText('alias.md', 'x'))).toMatch(/symbolic link/);
  });

  it('refuses a hard link to a file elsewhere', async () => {
    await link(join(outside, 'secret.txt'), join(root, 'hard.md'));
    expect(await refused(memory().readText('hard.md'))).toMatch(/hard link/);
    // Nor moved: the memory-tool rename moved it, then refused to index it, reporting a failure.
    expect(await refused(memory().rename('hard.md', 'moved.md'))).toMatch(/hard link/);
    expect(await readdir(root)).toContain('hard.md');
    expect(await readdir(root)).not.toContain('moved.md');
  });

  it('refuses hidden, engram-owned, reserved and control-character names as write targets', async () => {
    const c = memory();
    for (const name of [
      '.git/config',
      '.MEMORY.md.lock/x',
      '.engram-tmp-a',
      'con.md',
      'a\nb.md',
      'tab\there.md',
      'rtl\u202egnp.md',
      'trailing.',
    ]) {
      await refused(c.writeText(name, 'x'));
    }
    expect(await readdir(root)).toEqual(['archive']);
  });

  it('keeps credential locations unreadable even inside a read root', async () => {
    const home = join(top, 'home');
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'KEY');
    await writeFile(join(home, '.env.local'), 'TOKEN=1');
    await mkdir(join(home, '.claude'), { recursive: true });
    await writeFile(join(home, '.claude', 'settings.json'), '{}');
    await writeFile(join(home, 'notes.txt'), 'fine');
    const c = createConfinement({ roots: [{ path: home, write: false }], deny: { homedir: home } });
    await refused(c.readText('.ssh/id_ed25519'));
    await refused(c.readText('.env.local'));
    await refused(c.readText('.claude/settings.json'));
    expect((await c.readText('notes.txt')).text).toBe('fine');
    await refused(c.writeText('notes.txt', 'x'));
  });

  it("keeps version control's internals unreadable: a remote URL in .git/config can carry a token", async () => {
    const project = join(top, 'project');
    const files = {
      '.git/config': '[remote "origin"]\n\turl = https://x-access-token:ghp_TOKEN@github.com/o/r\n',
      '.git/FETCH_HEAD': 'abc branch main of https://ghp_TOKEN@github.com/o/r\n',
      'sub/.git/config': '[remote "origin"]\n\turl = https://ghp_TOKEN@host/r\n',
      '.GIT/Config': '[remote]',
      '.hg/hgrc': '[auth]\nx.password = TOKEN\n',
      '.svn/wc.db': 'TOKEN',
      '.gitconfig': '[url "https://ghp_TOKEN@github.com/"]\n',
      '.gitignore': 'node_modules\n',
      'src/git.ts': 'export {}',
    };
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(join(project, rel, '..'), { recursive: true });
      await writeFile(join(project, rel), text);
    }
    const c = createConfinement({ roots: [{ path: project, write: false }] });
    for (const rel of ['.git/config', '.git/FETCH_HEAD', 'sub/.git/config', '.GIT/Config'])
      expect(await refused(c.readText(rel)), rel).toMatch(/version control/);
    await refused(c.readText('.hg/hgrc'));
    await refused(c.readText('.svn/wc.db'));
    await refused(c.readText('.gitconfig'));
    await refused(c.list('.git'));
    expect((await c.readText('.gitignore')).text).toBe('node_modules\n');
    expect((await c.readText('src/git.ts')).text).toBe('export {}');
    expect((await c.list('.')).map((e) => e.name)).toContain('.git');
  });

  it('keeps credential locations unreadable in any letter case (case-insensitive disks)', async () => {
    const home = join(top, 'home');
    const files = {
      '.AWS/credentials': 'AWS',
      '.SSH/config': 'SSH',
      '.Claude/Settings.json': '{"apiKey":"x"}',
      '.Claude.json': '{"token":"x"}',
      '.Config/GH/hosts.yml': 'GH-TOKEN',
      '.Engram/Settings.json': '{}',
      'Notes.md': 'PLAIN',
    };
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(join(home, rel, '..'), { recursive: true });
      await writeFile(join(home, rel), text);
    }
    const c = createConfinement({
      roots: [{ path: home, write: false }],
      deny: { homedir: home, engramHome: join(home, '.engram') },
    });
    for (const rel of Object.keys(files).filter((f) => f !== 'Notes.md'))
      expect(await refused(c.readText(rel)), rel).toBeTruthy();
    expect((await c.readText('Notes.md')).text).toBe('PLAIN');
  });

  it("keeps home's key stores closed, and its hidden folders when the door asks", async () => {
    const home = join(top, 'home');
    const files = {
      'Library/Keychains/login.txt': 'KEYCHAIN',
      '.config/gh/hosts.yml': 'GH-TOKEN',
      '.config/tool/notes.md': 'TOOL',
      '.config/team/rules.md': 'TEAM',
      '.dotfiles/notes.md': 'DOTFILES',
      'notes.md': 'PLAIN',
    };
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(join(home, rel, '..'), { recursive: true });
      await writeFile(join(home, rel), text);
    }
    const plain = createConfinement({
      roots: [{ path: home, write: false }],
      deny: { homedir: home },
    });
    expect(await refused(plain.readText('Library/Keychains/login.txt'))).toMatch(/keys and tokens/);
    await refused(plain.readText('.config/gh/hosts.yml'));
    expect((await plain.readText('.config/tool/notes.md')).text).toBe('TOOL');
    const guarded = createConfinement({
      roots: [{ path: home, write: false }],
      deny: { homedir: home, homeDotEntriesOpenBelow: [join(home, '.config/team')] },
    });
    expect(await refused(guarded.readText('.config/tool/notes.md'))).toMatch(/hidden folder/);
    await refused(guarded.readText('.dotfiles/notes.md'));
    expect((await guarded.readText('.config/team/rules.md')).text).toBe('TEAM');
    expect((await guarded.readText('notes.md')).text).toBe('PLAIN');
  });

  it("refuses another project's memory folder under ENGRAM_HOME", async () => {
    const engramHome = join(top, 'engram');
    const own = join(engramHome, 'projects', 'mine', 'memory');
    const other = join(engramHome, 'projects', 'theirs', 'memory');
    await mkdir(own, { recursive: true });
    await mkdir(other, { recursive: true });
    await writeFile(join(other, 'x.md'), 'theirs');
    await writeFile(join(own, 'y.md'), 'mine');
    const c = createConfinement({
      roots: [{ path: engramHome, write: false }],
      deny: { engramHome, ownMemoryDirs: [own] },
    });
    await refused(c.readText(join(other, 'x.md')));
    expect((await c.readText(join(own, 'y.md'))).text).toBe('mine');
  });

  it('limits a root to named files', async () => {
    const c = createConfinement({ roots: [{ path: root, write: true, only: ['notes.md'] }] });
    await c.writeText('notes.md', 'ok');
    await refused(c.writeText('other.md', 'x'));
  });
});
