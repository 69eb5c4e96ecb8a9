import {
  createMemoryToolHandlers,
  type MemoryToolOptions,
  type MemoryToolTextHandlers,
} from '../memdir/memory-tool/handler.js';
import type { Engram } from '../runtime/types.js';

/**
 * The Anthropic memory tool's handlers on a runtime: its memory directory and clock, so `/memories`
 * is the directory every other door reads and writes, and its user layer as `/memories/user/`
 * (pass `userLayer: false` to leave it out).
 */
export function memoryToolHandlersFor(
  engram: Engram,
  options: Omit<MemoryToolOptions, 'memoryDir' | 'clock' | 'now' | 'userDir'> & {
    userLayer?: boolean;
  } = {},
): MemoryToolTextHandlers {
  const { userLayer, ...rest } = options;
  const userDir =
    userLayer === false ? undefined : engram.memoryChain.find((l) => l.layer === 'user')?.dir;
  return createMemoryToolHandlers({
    ...rest,
    memoryDir: engram.memoryDir,
    clock: engram.clock,
    ...(userDir === undefined ? {} : { userDir }),
  });
}
