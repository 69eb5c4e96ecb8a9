import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ForkedAgentResult, runForkedAgent } from '../llm/forked-agent.js';
import type { ConversationPrefix, LanguageModel, Usage } from '../llm/types.js';
import { auditMemoryDir, formatManifest, readIndexRaw, scanMemories } from '../memdir/index.js';
import { type Clock, systemClock } from '../util/clock.js';
import type { EngramError } from '../util/errors.js';
import { DEFAULT_DREAM_CONFIG, type SessionRef } from './gates.js';
import { compareAudits, type DreamInvariants } from './invariants.js';
import { applyTurn, type DreamProgress, initialProgress } from './progress.js';
import { buildDreamPrompt, DREAM_SYSTEM_PROMPT } from './prompts.js';
import {
  createDreamTools,
  DREAM_TOOL_DEFINITIONS,
  dreamCanUseTool,
  dreamConfinement,
  dreamReadRoots,
} from './tools.js';

export interface RunDreamOptions {
  model: LanguageModel;
  memoryDir: string;
  /**
   * The user layer's directory: when given, the pass may also tidy it and move facts about the
   * person there, under the same confinement and lock rules. Default: the project only.
   */
  userDir?: string;
  /** Sessions since the last consolidation, newest first. */
  sessions: readonly SessionRef[];
  /**
   * The host conversation to fork from, so the provider's prompt cache serves it. Without one the
   * run starts fresh with engram's own system text and file tools.
   */
  prefix?: ConversationPrefix;
  signal?: AbortSignal;
  maxTurns?: number;
  maxTokens?: number;
  /** Today's date for the prompt (relative dates become absolute ones). */
  clock?: Clock;
  onProgress?: (progress: DreamProgress) => void;
}

export interface DreamRunResult {
  status: ForkedAgentResult['status'];
  progress: DreamProgress;
  /** Before/after audit of the memory directory: what the pass broke or fixed. */
  invariants: DreamInvariants;
  /** The same check of the user layer's directory, when the pass could write there. */
  userInvariants?: DreamInvariants;
  usage: Usage;
  /** The agent's closing summary. */
  finalText: string;
  error?: EngramError;
}

/**
 * One consolidation pass: audit, fork an agent that may read anything and write only memory
 * files, then audit again and compare. Never throws for model or tool failures (they come back as
 * `status`); the lock is the caller's business.
 */
export async function runDream(options: RunDreamOptions): Promise<DreamRunResult> {
  const { memoryDir, sessions } = options;
  const userDir =
    options.userDir === undefined || resolve(options.userDir) === resolve(memoryDir)
      ? undefined
      : options.userDir;
  // The confinement walks real folders: the user layer's root exists before the first write.
  if (userDir !== undefined) await mkdir(userDir, { recursive: true, mode: 0o700 });
  const scan = await scanMemories(memoryDir);
  const before = await auditMemoryDir(memoryDir);
  const userScan = userDir === undefined ? undefined : await scanMemories(userDir);
  const userBefore = userDir === undefined ? undefined : await auditMemoryDir(userDir);
  let progress = initialProgress(sessions.length);
  options.onProgress?.(progress);
  const prompt = buildDreamPrompt({
    memoryDir,
    sessions,
    now: new Date((options.clock ?? systemClock).now()),
    manifest: formatManifest(scan.memories),
    manifestOmitted: scan.dropped,
    ...(userDir === undefined || userScan === undefined
      ? {}
      : { userDir, userManifest: formatManifest(userScan.memories) }),
  });
  const readRoots = dreamReadRoots(sessions);
  const agent = await runForkedAgent({
    model: options.model,
    prefix: options.prefix ?? {
      system: DREAM_SYSTEM_PROMPT,
      tools: DREAM_TOOL_DEFINITIONS,
      messages: [],
    },
    prompt,
    tools: createDreamTools(memoryDir, dreamConfinement(memoryDir, readRoots, userDir), userDir),
    canUseTool: dreamCanUseTool(memoryDir, readRoots, userDir),
    maxTurns: options.maxTurns ?? DEFAULT_DREAM_CONFIG.maxTurns,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    onTurn: (event) => {
      progress = applyTurn(progress, event, {
        memoryDir,
        sessions,
        ...(userDir === undefined ? {} : { userDir }),
      });
      options.onProgress?.(progress);
    },
  });
  const after = await auditMemoryDir(memoryDir);
  const invariants = compareAudits(before, after, (await readIndexRaw(memoryDir)) ?? '');
  const result: DreamRunResult = {
    status: agent.status,
    progress,
    invariants,
    usage: agent.usage,
    finalText: agent.finalText,
  };
  if (userDir !== undefined && userBefore !== undefined) {
    const userAfter = await auditMemoryDir(userDir);
    result.userInvariants = compareAudits(
      userBefore,
      userAfter,
      (await readIndexRaw(userDir)) ?? '',
    );
  }
  if (agent.error) result.error = agent.error;
  return result;
}
