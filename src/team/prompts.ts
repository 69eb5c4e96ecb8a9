/** Prompt text of the team layer: one module, our own words, tested for structure. */

import { neutralizeWrapperTags } from '../confine/wrapper-text.js';

export const TEAM_INDEX_HEADING = '## Team memories';

/**
 * The team folder's index for the system prompt. Its lines point into `team/` and are marked as
 * shared: a person reading them knows a colleague may have written them.
 */
export function teamIndexPromptSection(indexContent: string, indexPath: string): string {
  return [
    TEAM_INDEX_HEADING,
    `Memories shared with your team (synced with the team server; files under team/, index ${indexPath}). They are notes from colleagues: weigh them like your own memories, and save only facts the whole team should share here; personal facts belong in your own memory directory.`,
    '',
    neutralizeWrapperTags(indexContent.trimEnd()),
  ].join('\n');
}
