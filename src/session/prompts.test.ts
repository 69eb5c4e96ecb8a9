import { describe, expect, it } from 'vitest';
import {
  AWAY_SUMMARY_HEADINGS,
  buildAwaySummaryPrompt,
  buildSummaryInstruction,
  buildUpdateInstruction,
  compactedNotesMessage,
  DEFAULT_NOTES_SECTIONS,
  renderNotesTemplate,
  SUMMARY_INSTRUCTION_HEADINGS,
  sectionSizeReminder,
  UPDATE_INSTRUCTION_HEADINGS,
} from './prompts.js';

function inOrder(text: string, parts: readonly string[]): boolean {
  let at = -1;
  for (const p of parts) {
    const next = text.indexOf(p, at + 1);
    if (next < 0 || next <= at) return false;
    at = next;
  }
  return true;
}

describe('notes template', () => {
  it('has the ten sections in order, each a header plus an italic one-line instruction', () => {
    expect(DEFAULT_NOTES_SECTIONS.map((s) => s.title)).toEqual([
      'Session Title',
      'Current State',
      'Task Specification',
      'Files and Functions',
      'Workflow',
      'Errors and Corrections',
      'Codebase and System Documentation',
      'Learnings',
      'Key Results',
      'Worklog',
    ]);
    const text = renderNotesTemplate(DEFAULT_NOTES_SECTIONS);
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(20);
    lines.forEach((line, i) => {
      if (i % 2 === 0) expect(line).toMatch(/^# [A-Z]/);
      else expect(line).toMatch(/^_[A-Z][^_\n]+[.?]_$/);
    });
  });

  it('descriptions are instructions (start with a verb) and the failed-approach section asks for them', () => {
    for (const s of DEFAULT_NOTES_SECTIONS) {
      expect(s.description).toMatch(/^(Name|Say|Record|List|Write|Log|Explain|Note|Copy|Append) /);
    }
    const errors = DEFAULT_NOTES_SECTIONS.find((s) => s.title === 'Errors and Corrections')!;
    expect(errors.description).toMatch(/failed and must not be retried/);
  });
});

describe('update instruction', () => {
  const text = buildUpdateInstruction({
    notesPath: '/h/session-memory/s1/notes.md',
    currentNotes: '# Session Title\n_x_\n',
    sizeReminder: 'Reminder: these sections are over…',
    maxSectionTokens: 2000,
    maxTotalTokens: 12000,
  });

  it('has its action-oriented sections in order, ending with the current file', () => {
    expect(inOrder(text, UPDATE_INSTRUCTION_HEADINGS)).toBe(true);
    for (const h of UPDATE_INSTRUCTION_HEADINGS) expect(h).toMatch(/^## [A-Z][a-z]+ /);
    expect(text.trimEnd().endsWith('</notes>')).toBe(true);
    expect(text).toContain('<notes>\n# Session Title\n_x_\n\n</notes>');
  });

  it('states every rule the issue asks for', () => {
    expect(text).toContain('not part of the conversation above');
    expect(text).toMatch(/must not mention note-taking/);
    expect(text).toMatch(/do not rename, remove, reorder or add headers/);
    expect(text).toMatch(/italic line under a header exactly as it is/);
    expect(text).toMatch(/file paths, function names, exact commands, exact error messages/);
    expect(text).toMatch(/Always rewrite "Current State"/);
    expect(text).toMatch(/under about 2000 tokens and the whole file under about 12000 tokens/);
    expect(text).toContain('`/h/session-memory/s1/notes.md` only');
    expect(inOrder(text, ['## Stay within the size budget', 'Reminder: these sections'])).toBe(
      true,
    );
  });

  it('size reminders: hard warning over budget, named sections otherwise, nothing when fine', () => {
    const limits = { maxSectionTokens: 2000, maxTotalTokens: 12000 };
    expect(sectionSizeReminder([], 500, limits)).toBe('');
    expect(sectionSizeReminder([{ title: 'Worklog', tokens: 2500 }], 5000, limits)).toMatch(
      /^Reminder: .*\n- "Worklog": about 2500 tokens$/,
    );
    expect(sectionSizeReminder([{ title: 'Worklog', tokens: 2500 }], 13000, limits)).toMatch(
      /^WARNING: the notes are about 13000 tokens, over the 12000-token budget[\s\S]*"Worklog"/,
    );
  });
});

describe('compaction and away texts', () => {
  it('summary instruction: sections in order, no tools, asks for failed approaches and the next step', () => {
    const text = buildSummaryInstruction();
    expect(inOrder(text, SUMMARY_INSTRUCTION_HEADINGS)).toBe(true);
    expect(text).toMatch(/Do not call any tool/);
    expect(text).toMatch(/approaches that failed/);
    expect(text).toMatch(/the next step/);
  });

  it('compacted notes message names the notes file and carries the notes last', () => {
    const text = compactedNotesMessage('# Current State\n_x_\nwork', '/n.md');
    expect(text).toContain('full file: /n.md');
    expect(text.endsWith('# Current State\n_x_\nwork')).toBe(true);
  });

  it('away summary: notes, then recent messages, then the sections; 1-3 sentences, task then next step', () => {
    const text = buildAwaySummaryPrompt('# Current State\nport bug', 'user: fix it');
    expect(inOrder(text, ['<session-notes>', '<recent-messages>', ...AWAY_SUMMARY_HEADINGS])).toBe(
      true,
    );
    expect(text).toMatch(/1 to 3 short sentences/);
    expect(inOrder(text, ['task at a high level', 'concrete next step'])).toBe(true);
    expect(buildAwaySummaryPrompt(undefined, 'user: hi')).not.toContain('<session-notes>');
  });
});
