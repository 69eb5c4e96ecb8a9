import type { Engram } from '../runtime/types.js';
import {
  createMemoryToolHandlers,
  type MemoryToolOptions,
  type MemoryToolTextHandlers,
} from './handler.js';

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
