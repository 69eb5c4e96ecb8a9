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
  const scan = await scanMemories(memoryDir);
  const before = await auditMemoryDir(memoryDir);
  let progress = initialProgress(sessions.length);
  options.onProgress?.(progress);
  const prompt = buildDreamPrompt({
    memoryDir,
    sessions,
    now: new Date((options.clock ?? systemClock).now()),
    manifest: formatManifest(scan.memories),
    manifestOmitted: scan.dropped,
  });
  const agent = await runForkedAgent({
    model: options.model,
    prefix: options.prefix ?? {
      system: DREAM_SYSTEM_PROMPT,
      tools: DREAM_TOOL_DEFINITIONS,
      messages: [],
    },
    prompt,
    tools: createDreamTools(memoryDir, dreamConfinement(memoryDir, dreamReadRoots(sessions))),
    canUseTool: dreamCanUseTool(memoryDir, dreamReadRoots(sessions)),
    maxTurns: options.maxTurns ?? DEFAULT_DREAM_CONFIG.maxTurns,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    onTurn: (event) => {
      progress = applyTurn(progress, event, { memoryDir, sessions });
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
  if (agent.error) result.error = agent.error;
  return result;
}
