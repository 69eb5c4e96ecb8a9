export { type BudgetLimits, type BudgetPlan, planInjectionBudget } from './budget.js';

export {
  type BuildInjectionOptions,
  type BuiltInjection,
  buildInjection,
  type MemoryToInject,
  prepareInjectedMemory,
} from './build.js';

export {
  DEFAULT_INJECTION_LIMITS,
  type InjectionLimits,
  MAX_MEMORIES_PER_TURN,
  MAX_MEMORY_BYTES,
  MAX_MEMORY_LINES,
  MAX_SESSION_BYTES,
} from './constants.js';

export { memoryHeader } from './header.js';

export { contentBlocks, type InjectionHistory, injectionHistory } from './history.js';

export { type ParsedInjection, parseInjections } from './parse.js';

export { budgetExhaustedNotice, RECALLED_INTRO, truncationNote } from './prompts.js';

export {
  INJECTION_CLOSE,
  INJECTION_OPEN,
  type InjectedMemory,
  type Injection,
  memorySectionBytes,
  renderInjection,
  renderMemorySection,
} from './render.js';

export {
  countLines,
  type TruncatedContent,
  type TruncateLimits,
  truncateMemoryContent,
} from './truncate.js';
