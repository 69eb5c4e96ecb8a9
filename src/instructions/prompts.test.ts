import { describe, expect, it } from 'vitest';
import {
  describeInstructionFile,
  INSTRUCTIONS_HEADING,
  INSTRUCTIONS_PREAMBLE,
  renderInstructionsPrompt,
} from './prompts.js';
import type { InstructionType, LoadedInstructionFile } from './types.js';

function file(
  path: string,
  type: InstructionType,
  content: string,
  extra: Partial<LoadedInstructionFile> = {},
): LoadedInstructionFile {
  return {
    path,
    realPath: path,
    type,
    content,
    depth: 0,
    conditional: false,
    contentDiffersFromDisk: false,
    size: content.length,
    chars: content.length,
    tooLarge: false,
    ...extra,
  };
}

describe('instructions prompt', () => {
  it('opens with a heading and the override instruction, then says later files win', () => {
    expect(INSTRUCTIONS_PREAMBLE.startsWith(`${INSTRUCTIONS_HEADING}\n\n`)).toBe(true);
    const override = INSTRUCTIONS_PREAMBLE.search(/override your default behaviour/);
    const order = INSTRUCTIONS_PREAMBLE.search(/follow the one that comes later/);
    expect(override).toBeGreaterThan(0);
    expect(order).toBeGreaterThan(override);
    expect(INSTRUCTIONS_PREAMBLE).toMatch(/Follow them\./);
  });

  it('lists each non-empty file in order as "Contents of <path> (<kind>):"', () => {
    const prompt = renderInstructionsPrompt([
      file('/etc/engram/AGENTS.md', 'managed', 'policy'),
      file('/r/AGENTS.md', 'project', '   \n'),
      file('/r/docs/a.md', 'project', 'included text\n', { parent: '/r/CLAUDE.md', depth: 1 }),
      file('/r/CLAUDE.md', 'project', '@docs/a.md\n'),
      file('/r/CLAUDE.local.md', 'local', 'mine'),
    ]);
    expect(prompt.startsWith(INSTRUCTIONS_PREAMBLE)).toBe(true);
    const headers = [...prompt.matchAll(/^Contents of (\S+) \((.+)\):$/gm)].map((m) => m[1]);
    expect(headers).toEqual([
      '/etc/engram/AGENTS.md',
      '/r/docs/a.md',
      '/r/CLAUDE.md',
      '/r/CLAUDE.local.md',
    ]);
    expect(prompt).toContain(
      'Contents of /r/docs/a.md (project instructions, checked into the repository; included by /r/CLAUDE.md):\n\nincluded text',
    );
    expect(prompt).toMatch(/CLAUDE\.local\.md \(.*not checked in\):\n\nmine\n$/);
  });

  it('renders nothing when no file has content', () => {
    expect(renderInstructionsPrompt([])).toBe('');
    expect(renderInstructionsPrompt([file('/r/CLAUDE.md', 'project', '\n')])).toBe('');
  });

  it('describes every kind of file differently and names a rule globs', () => {
    const kinds = (['managed', 'user', 'project', 'local'] as const).map((t) =>
      describeInstructionFile(file('/x.md', t, 'x')),
    );
    expect(new Set(kinds).size).toBe(4);
    expect(
      describeInstructionFile(
        file('/r/.claude/rules/a.md', 'project', 'x', { globs: ['src/**'], conditional: true }),
      ),
    ).toContain('applies to files matching src/**');
  });
});
