import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Run git in a fixture repository with a fixed identity (tests never read the user's config). */
export function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Fixture',
      GIT_AUTHOR_EMAIL: 'fixture@example.invalid',
      GIT_COMMITTER_NAME: 'Fixture',
      GIT_COMMITTER_EMAIL: 'fixture@example.invalid',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
    },
  });
}

/** 150 lines, the blit function on the last one. */
export const RENDER_TS = `${Array.from({ length: 150 }, (_, i) => `// line ${i + 1}`).join('\n')}\nexport function renderBlit() {}\n`;

/** A git repository in a temp dir with `files` committed. */
export function fixtureProject(files: Record<string, string>, options: { git?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'engram-project-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  if (options.git !== false) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'fixture');
  }
  return root;
}

/** A memory file's text with frontmatter. */
export function memoryText(
  name: string,
  description: string,
  body: string,
  type = 'project',
): string {
  return `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;
}
