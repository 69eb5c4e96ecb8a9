import type { EngramEnvironment } from '../config/index.js';
import type { LanguageModel } from '../llm/types.js';
import { createEngram } from '../runtime/create-engram.js';
import type { Engram } from '../runtime/types.js';
import type { Clock } from '../util/clock.js';
import type { Notice } from './notices.js';

export interface HookContext {
  /** The runtime the hooks translate onto (the CLI builds it from the hook input's cwd). */
  engram?: Engram;
  /**
   * Without `engram`: where the session runs, its memory directory and model, from which one
   * is built. A host holding a runtime passes it instead.
   */
  environment?: EngramEnvironment;
  memoryDir?: string;
  /** Recall selector / extraction / notes model; absent = offline recall and no background work. */
  model?: LanguageModel;
  clock?: Clock;
  /** Time limit for the event's model work (pre-compact; recall has its own budget). */
  budgetMs?: number;
  /** Report a remark for people (stderr); stdout is reserved for the JSON. */
  log?: (line: string) => void;
  /**
   * Selected memories whose claim checks were not in the cache: start a refresh that outlives
   * this process (the hook answers from the cache alone, so the next turn benefits).
   */
  refreshClaims?: (files: string[]) => void;
  /** Raise a degradation the user should see (shown once per session as `systemMessage`). */
  notice?: (notice: Notice) => void;
}

/** The runtime a hook runs on: the one given, else one built from the context's parts. */
export function runtimeOf(ctx: HookContext): Engram {
  if (ctx.engram) return ctx.engram;
  const environment = ctx.environment;
  return createEngram({
    ...(environment
      ? { cwd: environment.cwd, env: environment.env, homedir: environment.homedir }
      : {}),
    ...(ctx.memoryDir !== undefined ? { memoryDir: ctx.memoryDir } : {}),
    ...(ctx.model ? { model: ctx.model } : {}),
    ...(ctx.clock ? { clock: ctx.clock } : {}),
  });
}
