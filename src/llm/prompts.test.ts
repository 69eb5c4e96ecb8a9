import { describe, expect, it } from 'vitest';
import { FILE_TOOL_DESCRIPTIONS, MODEL_CHECK_PROMPT } from './prompts.js';

describe('model-layer prompts', () => {
  it('describe every file tool with an action first, and name the key constraints', () => {
    expect(Object.keys(FILE_TOOL_DESCRIPTIONS)).toEqual(['read', 'write', 'edit', 'list', 'grep']);
    for (const text of Object.values(FILE_TOOL_DESCRIPTIONS))
      expect(text).toMatch(/^(Read|Create|Replace|List|Search) /);
    expect(FILE_TOOL_DESCRIPTIONS.read).toMatch(/offset.*limit/);
    expect(FILE_TOOL_DESCRIPTIONS.edit).toMatch(/exactly once/);
    expect(FILE_TOOL_DESCRIPTIONS.write).toMatch(/Read an existing file first/);
  });

  it('keeps the models-check probe tiny', () => {
    expect(MODEL_CHECK_PROMPT.length).toBeLessThan(60);
    expect(MODEL_CHECK_PROMPT).toMatch(/^Reply/);
  });
});
