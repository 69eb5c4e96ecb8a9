import {
  createMemoryToolHandlers,
  type MemoryToolOptions,
  type MemoryToolTextHandlers,
} from '../memdir/memory-tool/handler.js';
import type { Engram } from '../runtime/types.js';

/**
 * The Anthropic memory tool's handlers on a runtime: its memory directory and clock, so `/memories`
 * is the directory every other door reads and writes.
 */
export function memoryToolHandlersFor(
  engram: Engram,
  options: Omit<MemoryToolOptions, 'memoryDir' | 'clock' | 'now'> = {},
): MemoryToolTextHandlers {
  return createMemoryToolHandlers({ ...options, memoryDir: engram.memoryDir, clock: engram.clock });
}
