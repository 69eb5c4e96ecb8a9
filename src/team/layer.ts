import { loadIndex } from '../memdir/index.js';
import { teamDirOf } from './client/team-files.js';
import { teamIndexPromptSection } from './prompts.js';

/**
 * The team layer's index section for a system prompt, or undefined when the team folder has no
 * index yet. The index is capped like every other index (200 lines, 25,000 bytes, with the
 * visible warning), so the team layer spends the same budgets as the others.
 */
export async function teamIndexSection(memoryDir: string): Promise<string | undefined> {
  const index = await loadIndex(teamDirOf(memoryDir)).catch(() => undefined);
  if (!index?.exists || index.content.trim() === '') return undefined;
  return teamIndexPromptSection(index.content, index.path);
}
