import { describe, expect, it } from 'vitest';
import { TEAM_INDEX_HEADING, teamIndexPromptSection } from './prompts.js';

describe('team prompts', () => {
  it('marks the team index as shared and keeps its lines as they are', () => {
    const index = '- [Release train](release-train.md) — no deploys on fridays\n';
    const text = teamIndexPromptSection(index, '/m/team/MEMORY.md');
    expect(text.startsWith(`${TEAM_INDEX_HEADING}\n`)).toBe(true);
    expect(text).toContain('team/');
    expect(text).toContain('/m/team/MEMORY.md');
    expect(text.endsWith(index.trimEnd())).toBe(true);
  });
});
