import { neutralizeWrapperTags } from '../confine/wrapper-text.js';
import { planInjectionBudget } from './budget.js';
import { DEFAULT_INJECTION_LIMITS, type InjectionLimits } from './constants.js';
import { memoryHeader } from './header.js';
import { budgetExhaustedNotice, truncationNote } from './prompts.js';
import {
  type InjectedMemory,
  type Injection,
  memorySectionBytes,
  renderInjection,
} from './render.js';
import { truncateMemoryContent } from './truncate.js';

export interface MemoryToInject {
  file: string;
  path: string;
  mtimeMs: number;
  /** The file's full text. */
  content: string;
  /** What claim verification found, frozen into the header ('' or absent: nothing). */
  verificationNote?: string;
}

/**
 * Freeze one selected memory: cap its text, add the note when cut, and compute its header with
 * `nowMs`. The result is stored with the conversation and rendered from then on as is. Pure.
 */
export function prepareInjectedMemory(
  memory: MemoryToInject,
  nowMs: number,
  limits: Pick<InjectionLimits, 'maxLines' | 'maxBytes'> = DEFAULT_INJECTION_LIMITS,
): InjectedMemory {
  const cut = truncateMemoryContent(memory.content, limits);
  const content = cut.truncated ? `${cut.text}${truncationNote(memory.path, limits)}` : cut.text;
  // Frozen as the wrapper shows it: text that would close or imitate a wrapper tag is escaped now.
  return {
    file: memory.file,
    path: memory.path,
    header: neutralizeWrapperTags(
      memoryHeader(memory.path, memory.mtimeMs, nowMs, memory.verificationNote),
    ),
    content: neutralizeWrapperTags(content),
    truncated: cut.truncated,
  };
}

export interface BuildInjectionOptions {
  /** Memory bytes already in the history (see injectionHistory). */
  sessionBytes: number;
  /** Whether the history already carries the budget notice (it is said once). */
  budgetNoticeShown: boolean;
  limits?: InjectionLimits;
}

export interface BuiltInjection {
  injection: Injection;
  /** The exact bytes to put in the context ('' when there is nothing to say). */
  text: string;
  /** The memories that fit, in order, with the bytes each adds. */
  injected: { memory: InjectedMemory; bytes: number }[];
  /** Selected but left out because the session budget ran out. */
  droppedByBudget: InjectedMemory[];
  injectedBytes: number;
  sessionBytesAfter: number;
  exhausted: boolean;
}

/** Apply the per-turn and session budgets to prepared memories and render the block. Pure. */
export function buildInjection(
  memories: readonly InjectedMemory[],
  options: BuildInjectionOptions,
): BuiltInjection {
  const limits = options.limits ?? DEFAULT_INJECTION_LIMITS;
  const sizes = memories.map(memorySectionBytes);
  const plan = planInjectionBudget(sizes, options.sessionBytes, limits);
  const injected = memories.slice(0, plan.take).map((memory, i) => ({ memory, bytes: sizes[i]! }));
  const injection: Injection = { memories: injected.map((e) => e.memory) };
  if (plan.exhausted && !options.budgetNoticeShown) {
    injection.notice = budgetExhaustedNotice(limits.maxSessionBytes);
  }
  return {
    injection,
    text: renderInjection(injection),
    injected,
    // Only what the budget cut; the per-turn cap is the selector's job and is not a budget stop.
    droppedByBudget: plan.exhausted ? memories.slice(plan.take) : [],
    injectedBytes: plan.sessionBytesAfter - options.sessionBytes,
    sessionBytesAfter: plan.sessionBytesAfter,
    exhausted: plan.exhausted,
  };
}
