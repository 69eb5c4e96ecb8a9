/**
 * The Anthropic memory tool (`memory_20250818`) door: handlers for the SDK's `betaMemoryTool`
 * over an engram memory directory. The command semantics (paths under `/memories`, the two-step
 * save, revoke-on-delete) live with the directory they act on, in `src/memdir/memory-tool/`, so the
 * extraction fork can execute the tool without depending on this door.
 */
export {
  editSnippet,
  formatFileSize,
  formatFileView,
  formatListing,
  type ListingItem,
  MAX_FILE_LINES,
  numberLines,
} from '../memdir/memory-tool/format.js';

export {
  createMemoryToolHandlers,
  MemoryToolError,
  type MemoryToolOptions,
  type MemoryToolTextHandlers,
} from '../memdir/memory-tool/handler.js';

export {
  type IndexSyncOutcome,
  indexNote,
  isTopicFile,
  syncIndex,
  syncRenamedIndex,
} from '../memdir/memory-tool/index-sync.js';

export {
  MEMORY_TOOL_ROOT,
  type MemoryToolPath,
  parseMemoryToolPath,
  toolPathOf,
} from '../memdir/memory-tool/paths.js';

export { memoryToolHandlersFor } from './for-runtime.js';
