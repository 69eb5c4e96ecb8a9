import type { EngramEnvironment } from '../config/index.js';
import { loadIndex, memoryGuidance } from '../memdir/index.js';
import { readSessionNotes } from '../session/read-notes.js';
import { teamIndexSection } from '../team/layer.js';
import { indexSection, notesSection, userIndexSection } from './prompts.js';

export interface SystemPromptParts {
  /** The assembled instruction files (AGENTS.md, CLAUDE.md, …); '' or absent for none. */
  instructions?: string;
  memoryDir: string;
  index: { content: string; path: string };
  /** The session's notes, after a compaction. */
  notes?: { content: string; path: string };
  /** The team layer's index section (already rendered by the team layer), when it has one. */
  team?: string;
  /** The user layer's index, capped on its own like the project's; absent or empty for none. */
  user?: { content: string; path: string };
}

/**
 * The one system-prompt assembly: instructions, memory guidance, session notes (after a
 * compaction), the index, then the team layer's index. Every door renders these bytes. Pure.
 */
export function assembleSystemPrompt(parts: SystemPromptParts): string {
  const out: string[] = [];
  if (parts.instructions && parts.instructions.trim() !== '')
    out.push(parts.instructions.trimEnd());
  out.push(memoryGuidance({ memoryDir: parts.memoryDir }));
  if (parts.notes) out.push(notesSection(parts.notes.content, parts.notes.path));
  out.push(indexSection(parts.index.content, parts.index.path));
  if (parts.team) out.push(parts.team);
  if (parts.user && parts.user.content.trim() !== '') {
    out.push(userIndexSection(parts.user.content, parts.user.path));
  }
  return `${out.join('\n\n')}\n`;
}

export interface BuildSystemPromptOptions {
  environment: EngramEnvironment;
  memoryDir: string;
  sessionId: string;
  /** Read the instruction files (default true; Claude Code loads its own CLAUDE.md). */
  instructions?: boolean;
  /** The conversation restarts after a compaction: show the session's notes. */
  afterCompaction?: boolean;
  /** The user layer's memory directory, whose index follows the project's. */
  userDir?: string;
}

/**
 * Read what the prompt needs and assemble it. Instruction files are read afresh for each call
 * (a session calls it once and keeps the bytes), so a long-running host's next session sees an
 * edited AGENTS.md while a running session's prompt prefix never changes under it.
 */
export async function buildSystemPrompt(options: BuildSystemPromptOptions): Promise<string> {
  const [instructions, index, notes, team, user] = await Promise.all([
    options.instructions === false
      ? undefined
      : import('../instructions/index.js').then(({ loadInstructions }) =>
          loadInstructions({ environment: options.environment, cache: false }),
        ),
    loadIndex(options.memoryDir),
    options.afterCompaction
      ? readSessionNotes(options.environment, options.sessionId).catch(() => undefined)
      : undefined,
    teamIndexSection(options.memoryDir),
    options.userDir !== undefined && options.userDir !== options.memoryDir
      ? loadIndex(options.userDir).catch(() => undefined)
      : undefined,
  ]);
  return assembleSystemPrompt({
    ...(instructions ? { instructions: instructions.prompt } : {}),
    memoryDir: options.memoryDir,
    index,
    ...(notes?.exists && !notes.templateOnly
      ? { notes: { content: notes.content, path: notes.path } }
      : {}),
    ...(team ? { team } : {}),
    ...(user?.exists ? { user: { content: user.content, path: user.path } } : {}),
  });
}
