import { describe, expect, it } from 'vitest';
import { indexSection, notesSection, SYSTEM_PROMPT_HEADINGS } from './prompts.js';

describe('system prompt sections', () => {
  it('state facts with their headings first', () => {
    expect(indexSection('', '/m/MEMORY.md')).toBe(
      `${SYSTEM_PROMPT_HEADINGS.index}\nPath: /m/MEMORY.md\nOne line per memory; open a memory file when its line looks relevant.\n\n${SYSTEM_PROMPT_HEADINGS.emptyIndex}`,
    );
    expect(indexSection('- [a](a.md)\n', '/m/MEMORY.md').split('\n')).toEqual([
      SYSTEM_PROMPT_HEADINGS.index,
      'Path: /m/MEMORY.md',
      'One line per memory; open a memory file when its line looks relevant.',
      '',
      '- [a](a.md)',
    ]);
    expect(notesSection(' notes ', '/n.md').startsWith(`${SYSTEM_PROMPT_HEADINGS.notes}\n`)).toBe(
      true,
    );
  });
});
