import type { EngramEnvironment, MemoryLayer } from '../config/index.js';
import { loadIndex, memoryGuidance } from '../memdir/index.js';
import { readSessionNotes } from '../session/read-notes.js';
import { teamIndexSection } from '../team/layer.js';
import { agentIndexSection, indexSection, notesSection, userIndexSection } from './prompts.js';

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
  /** An agent session: the agent's further scopes' indexes (its first is `index`). */
  agent?: { name: string; more: Array<{ scope: string; content: string; path: string }> };
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
  for (const more of parts.agent?.more ?? []) {
    if (more.content.trim() !== '')
      out.push(agentIndexSection(parts.agent!.name, more.scope, more.content, more.path));
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
  /**
   * An agent's session: its own chain (local, project, user scopes) instead of the main one. The
   * first layer takes the place of the project directory, the others follow; the main index,
   * the team layer and the main user layer are left out (no blending).
   */
  agent?: { name: string; layers: readonly MemoryLayer[] };
}

/**
 * Read what the prompt needs and assemble it. Instruction files are read afresh for each call
 * (a session calls it once and keeps the bytes), so a long-running host's next session sees an
 * edited AGENTS.md while a running session's prompt prefix never changes under it.
 */
export async function buildSystemPrompt(options: BuildSystemPromptOptions): Promise<string> {
  if (options.agent !== undefined) return buildAgentSystemPrompt(options, options.agent);
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

/** An agent session's prompt: the instructions, notes and the agent's own indexes only. */
async function buildAgentSystemPrompt(
  options: BuildSystemPromptOptions,
  agent: { name: string; layers: readonly MemoryLayer[] },
): Promise<string> {
  const [first, ...rest] = agent.layers;
  const memoryDir = first?.dir ?? options.memoryDir;
  const [instructions, index, notes, more] = await Promise.all([
    options.instructions === false
      ? undefined
      : import('../instructions/index.js').then(({ loadInstructions }) =>
          loadInstructions({ environment: options.environment, cache: false }),
        ),
    loadIndex(memoryDir),
    options.afterCompaction
      ? readSessionNotes(options.environment, options.sessionId).catch(() => undefined)
      : undefined,
    Promise.all(
      rest.map(async (layer) => {
        const loaded = await loadIndex(layer.dir).catch(() => undefined);
        return loaded?.exists
          ? [{ scope: layer.scope ?? layer.layer, content: loaded.content, path: loaded.path }]
          : [];
      }),
    ),
  ]);
  return assembleSystemPrompt({
    ...(instructions ? { instructions: instructions.prompt } : {}),
    memoryDir,
    index,
    ...(notes?.exists && !notes.templateOnly
      ? { notes: { content: notes.content, path: notes.path } }
      : {}),
    agent: { name: agent.name, more: more.flat() },
  });
}
