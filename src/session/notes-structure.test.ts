import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSelfReferences, measureNotes, truncateNotesForCompaction } from './notes-checks.js';
import {
  isTemplateOnly,
  parseNotes,
  parseTemplate,
  restoreNotesStructure,
} from './notes-structure.js';
import { DEFAULT_NOTES_SECTIONS, renderNotesTemplate } from './prompts.js';

const template = renderNotesTemplate(DEFAULT_NOTES_SECTIONS);
const sections = DEFAULT_NOTES_SECTIONS;

/** Notes with some content under a few sections. */
function filledNotes(): string {
  return template
    .replace(
      '_Say what is in progress right now, what is finished, and the very next step still open._\n',
      '_Say what is in progress right now, what is finished, and the very next step still open._\nFixing the port bug in src/config.ts; next: add a test.\n',
    )
    .replace(
      '_Append one terse line per step taken, oldest first._\n',
      '_Append one terse line per step taken, oldest first._\n- read src/config.ts\n- ran npm test: 2 failures\n',
    );
}

describe('template', () => {
  it('parses back into the ten sections it was rendered from', () => {
    expect(parseTemplate(template)).toEqual(sections);
    expect(parseNotes(template).sections).toHaveLength(10);
  });

  it('template-only detection: template, empty, whitespace are "nothing yet"; content is not', () => {
    expect(isTemplateOnly(template, sections)).toBe(true);
    expect(isTemplateOnly('', sections)).toBe(true);
    expect(isTemplateOnly('\n  \n', sections)).toBe(true);
    expect(isTemplateOnly(filledNotes(), sections)).toBe(false);
  });

  it('a user template with example content counts as template-only until it changes', () => {
    const user =
      '# Goal\n_What we are doing._\nexample: migrate the DB\n\n# Next\n_The next step._\n';
    const specs = parseTemplate(user);
    expect(isTemplateOnly(user, specs)).toBe(false);
    expect(isTemplateOnly(`${user}\n`, specs, user)).toBe(true);
    expect(isTemplateOnly(user.replace('migrate the DB', 'port bug'), specs, user)).toBe(false);
  });

  it('a user template written with *asterisk* italics keeps its form: no false repairs', () => {
    const user =
      '# 标题\n*用 5-10 个词命名这次会话*\n\n# Current State\n*What is happening now.*\n';
    const specs = parseTemplate(user);
    expect(specs.map((s) => s.description)).toEqual([
      '用 5-10 个词命名这次会话',
      'What is happening now.',
    ]);
    const filled = user.replace('now.*\n', 'now.*\nfixing the port bug\n');
    expect(restoreNotesStructure(filled, specs)).toEqual({ text: filled, repairs: [] });
    // A reworded description is still put back, in the template's own form.
    const reworded = filled.replace('*What is happening now.*', '*Whatever.*');
    expect(restoreNotesStructure(reworded, specs)).toEqual({
      text: filled,
      repairs: ['description of "# Current State" restored'],
    });
  });

  it('a header inside a code fence is content, not a section', () => {
    const notes = filledNotes().replace('- read src/config.ts', '```sh\n# not a header\n```');
    expect(parseNotes(notes).sections.map((s) => s.title)).toEqual(sections.map((s) => s.title));
  });
});

describe('restoreNotesStructure', () => {
  it('leaves intact notes byte for byte unchanged', () => {
    const notes = filledNotes();
    expect(restoreNotesStructure(notes, sections)).toEqual({ text: notes, repairs: [] });
  });

  it('restores a deleted header (its description still marks where it began) and keeps the content', () => {
    const damaged = filledNotes().replace('# Current State\n', '');
    const { text, repairs } = restoreNotesStructure(damaged, sections);
    expect(repairs).toContain('deleted header "# Current State" restored');
    expect(parseTemplate(text)).toEqual(sections);
    const current = parseNotes(text).sections.find((s) => s.title === 'Current State')!;
    expect(current.lines.join('\n')).toContain('Fixing the port bug in src/config.ts');
    expect(text).toContain('- ran npm test: 2 failures');
  });

  it('restores a deleted header whose description was deleted too (content stays, in the section above)', () => {
    const damaged = filledNotes().replace(
      '# Current State\n_Say what is in progress right now, what is finished, and the very next step still open._\n',
      '',
    );
    const { text, repairs } = restoreNotesStructure(damaged, sections);
    expect(repairs).toContain('missing section "# Current State" restored');
    expect(parseTemplate(text)).toEqual(sections);
    expect(text).toContain('Fixing the port bug in src/config.ts');
  });

  it('renames a reworded header back (matched by its description line)', () => {
    const damaged = filledNotes().replace('# Current State', '# Status right now');
    const { text, repairs } = restoreNotesStructure(damaged, sections);
    expect(repairs).toEqual(['header "# Status right now" restored to "# Current State"']);
    expect(parseTemplate(text)).toEqual(sections);
  });

  it('renames a reworded header back by position when its description was reworded too', () => {
    const damaged = filledNotes()
      .replace('# Workflow', '# Commands')
      .replace(
        '_Write the commands that get run (build, test, deploy) and the order they run in._',
        '_Commands._',
      );
    const { text, repairs } = restoreNotesStructure(damaged, sections);
    expect(repairs).toContain('header "# Commands" restored to "# Workflow"');
    expect(repairs).toContain('description of "# Workflow" restored');
    expect(parseTemplate(text)).toEqual(sections);
    expect(text).not.toContain('_Commands._');
  });

  it('restores a removed italic line without taking the content under it for a description', () => {
    const damaged = filledNotes().replace(
      '_Say what is in progress right now, what is finished, and the very next step still open._\n',
      '',
    );
    const { text, repairs } = restoreNotesStructure(damaged, sections);
    expect(repairs).toEqual(['description of "# Current State" restored']);
    expect(parseTemplate(text)).toEqual(sections);
    expect(text).toContain('Fixing the port bug in src/config.ts; next: add a test.');
  });

  it('demotes an added header into the section it appeared in', () => {
    const damaged = filledNotes().replace(
      '- ran npm test',
      '# Extra thoughts\nsome idea\n- ran npm test',
    );
    const { text, repairs } = restoreNotesStructure(damaged, sections);
    expect(repairs).toContain('added header "# Extra thoughts" kept as "## Extra thoughts"');
    expect(parseTemplate(text)).toEqual(sections);
    expect(text).toContain('## Extra thoughts\nsome idea');
  });

  it('rebuilds a file the updater emptied', () => {
    const { text, repairs } = restoreNotesStructure('', sections);
    expect(repairs.length).toBe(10);
    expect(parseTemplate(text)).toEqual(sections);
  });
});

describe('sizes and truncation', () => {
  it('names oversized sections, largest first, in the reminder', () => {
    const notes = filledNotes()
      .replace('- read src/config.ts', `- ${'w'.repeat(9_000)}`)
      .replace('Fixing the port bug', `Fixing ${'c'.repeat(12_000)}`);
    const report = measureNotes(notes);
    expect(report.oversized.map((s) => s.title)).toEqual(['Current State', 'Worklog']);
    expect(report.overBudget).toBe(false);
    expect(report.reminder).toMatch(/^Reminder: .*2000-token limit/);
    expect(report.reminder.indexOf('Current State')).toBeLessThan(
      report.reminder.indexOf('Worklog'),
    );
  });

  it('gives a hard warning when the whole is over 12,000 tokens', () => {
    const notes = filledNotes().replace('- read src/config.ts', `- ${'w'.repeat(50_000)}`);
    const report = measureNotes(notes);
    expect(report.overBudget).toBe(true);
    expect(report.reminder).toMatch(/^WARNING: .*over the 12000-token budget/);
  });

  it('no reminder when everything fits', () => {
    expect(measureNotes(filledNotes()).reminder).toBe('');
  });

  it('truncates sections over 8,000 characters at a line boundary, with a marker naming the file', () => {
    const long = Array.from({ length: 400 }, (_, i) => `- step ${i}: ${'z'.repeat(30)}`).join('\n');
    const notes = filledNotes().replace('- read src/config.ts', long);
    const { text, truncatedSections } = truncateNotesForCompaction(notes, '/s/notes.md');
    expect(truncatedSections).toEqual(['Worklog']);
    const worklog = text.slice(text.indexOf('# Worklog'));
    expect(worklog.length).toBeLessThan(8_200);
    expect(worklog).toContain(
      '[... section shortened for compaction; read /s/notes.md for the rest]',
    );
    expect(worklog).toMatch(/- step \d+: z{30}\n\[\.\.\. section shortened/);
    expect(text).toContain('Fixing the port bug');
  });
});

describe('findSelfReferences', () => {
  it('flags notes that talk about the note-taking itself', () => {
    const notes = filledNotes().replace(
      '- read src/config.ts',
      '- I am updating the session notes',
    );
    const found = findSelfReferences(notes);
    expect(found).toHaveLength(1);
    expect(found[0]!.text).toBe('- I am updating the session notes');
  });

  it.each([
    'Updated the notes file with the latest state',
    'Following these instructions, the sections were filled in',
    'Note-taking paused while tests ran',
  ])('flags "%s"', (line) => {
    expect(findSelfReferences(`# Worklog\n${line}\n`)).toHaveLength(1);
  });

  it.each([
    'Updated the release notes for v2.3',
    'Wrote notes on the retry policy in docs/retry.md',
    'Fixed the port bug in src/config.ts',
  ])('does not flag "%s"', (line) => {
    expect(findSelfReferences(`# Worklog\n${line}\n`)).toEqual([]);
  });

  it('ignores the template lines themselves', () => {
    const lines = sections.flatMap((s) => [`# ${s.title}`, `_${s.description}_`]);
    expect(findSelfReferences(template, lines)).toEqual([]);
  });
});

describe('restoreNotesStructure: property', () => {
  it('any mix of deleted, renamed or added headers and deleted italic lines: structure back, no content lost', () => {
    const contentLine = fc.stringMatching(/^[a-z][a-z0-9 ./:-]{0,30}$/).map((s) => `- ${s}`);
    const damage = fc.oneof(
      fc.record({ kind: fc.constant('delete-header' as const), at: fc.nat(9) }),
      fc.record({ kind: fc.constant('rename-header' as const), at: fc.nat(9) }),
      fc.record({ kind: fc.constant('delete-description' as const), at: fc.nat(9) }),
      fc.record({ kind: fc.constant('add-header' as const), at: fc.nat(9) }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(contentLine, { maxLength: 3 }), { minLength: 10, maxLength: 10 }),
        fc.array(damage, { maxLength: 4 }),
        (bodies, damages) => {
          const lines = sections.flatMap((s, i) => [
            `# ${s.title}`,
            `_${s.description}_`,
            ...bodies[i]!,
            '',
          ]);
          for (const d of damages) {
            const title = `# ${sections[d.at]!.title}`;
            const h = lines.indexOf(title);
            if (h < 0) continue;
            if (d.kind === 'delete-header') lines.splice(h, 1);
            if (d.kind === 'rename-header') lines[h] = `# Renamed ${d.at}`;
            if (d.kind === 'delete-description' && lines[h + 1]?.startsWith('_'))
              lines.splice(h + 1, 1);
            if (d.kind === 'add-header') lines.splice(h + 2, 0, `# Extra ${d.at}`);
          }
          const { text } = restoreNotesStructure(lines.join('\n'), sections);
          expect(parseTemplate(text)).toEqual(sections);
          for (const line of bodies.flat()) expect(text).toContain(line);
          // A second pass finds nothing left to repair.
          expect(restoreNotesStructure(text, sections).repairs).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
