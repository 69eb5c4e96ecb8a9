import { resolve } from 'node:path';
import { type LayeredPath, layeredPath, savedFileName } from '../extract/memory-writes.js';
import type { SessionRef } from './gates.js';

/** What a running consolidation has done so far, as data: the CLI renders it, hosts may too. */
export interface DreamProgress {
  /** `starting` until the agent first writes a memory, then `updating`. */
  phase: 'starting' | 'updating';
  sessionsToReview: number;
  /** Ids of listed sessions the agent actually looked into (read, grep, find or list on them). */
  sessionsReviewed: string[];
  /**
   * Memory files written or edited, relative to the memory directory (a user-layer file by its
   * absolute path), first touch first.
   */
  filesTouched: string[];
  /** The same files, each with its layer and absolute path. */
  touchedIn: LayeredPath[];
  turns: number;
  toolCalls: number;
  /** Calls the sandbox refused (e.g. a write outside the memory directory). */
  refusedCalls: number;
}

/** One executed tool call, as the forked agent reports it. */
export interface ToolCallRecord {
  name: string;
  input: unknown;
  allowed: boolean;
  isError: boolean;
}

export function initialProgress(sessionsToReview: number): DreamProgress {
  return {
    phase: 'starting',
    sessionsToReview,
    sessionsReviewed: [],
    filesTouched: [],
    touchedIn: [],
    turns: 0,
    toolCalls: 0,
    refusedCalls: 0,
  };
}

const WRITE_TOOLS = new Set(['write', 'edit']);

/** Fold one agent turn into the progress. Pure. */
export function applyTurn(
  progress: DreamProgress,
  turn: { turn: number; toolCalls: readonly ToolCallRecord[] },
  context: { memoryDir: string; userDir?: string; sessions: readonly SessionRef[] },
): DreamProgress {
  const touched = [...progress.touchedIn];
  // Relative paths start in the memory directory, as the tools resolve them.
  const paths = {
    memoryDir: context.memoryDir,
    cwd: context.memoryDir,
    ...(context.userDir === undefined ? {} : { userDir: context.userDir }),
  };
  const reviewed = new Set(progress.sessionsReviewed);
  let refused = progress.refusedCalls;
  for (const call of turn.toolCalls) {
    if (!call.allowed) refused++;
    const path = pathOf(call.input);
    if (WRITE_TOOLS.has(call.name) && call.allowed && !call.isError && path !== undefined) {
      const at = layeredPath(resolve(context.memoryDir, path), paths);
      if (at !== undefined && at.file !== '' && !touched.some((t) => t.path === at.path))
        touched.push(at);
    }
    if (!WRITE_TOOLS.has(call.name)) {
      const text = JSON.stringify(call.input ?? '');
      for (const s of context.sessions) {
        if (text.includes(s.id) || text.includes(JSON.stringify(s.path).slice(1, -1)))
          reviewed.add(s.id);
      }
    }
  }
  return {
    phase: touched.length > 0 ? 'updating' : progress.phase,
    sessionsToReview: progress.sessionsToReview,
    // Keep the listed order so repeated renders are stable.
    sessionsReviewed: context.sessions.map((s) => s.id).filter((id) => reviewed.has(id)),
    filesTouched: touched.map(savedFileName),
    touchedIn: touched,
    turns: Math.max(progress.turns, turn.turn),
    toolCalls: progress.toolCalls + turn.toolCalls.length,
    refusedCalls: refused,
  };
}

function pathOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const path = (input as { path?: unknown }).path;
  return typeof path === 'string' && path !== '' ? path : undefined;
}

/** One line for a terminal: `updating · 3/5 sessions reviewed · 2 files touched · turn 4`. */
export function formatProgress(p: DreamProgress): string {
  const files = p.filesTouched.length;
  return `${p.phase} · ${p.sessionsReviewed.length}/${p.sessionsToReview} sessions reviewed · ${files} file${files === 1 ? '' : 's'} touched · turn ${p.turns}`;
}
