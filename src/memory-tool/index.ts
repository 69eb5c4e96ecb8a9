/**
 * The Anthropic memory tool (`memory_20250818`) door: handlers for the SDK's `betaMemoryTool`
 * over an engram memory directory. The command semantics (paths under `/memories`, the two-step
 * save, revoke-on-delete) live with the directory they act on, in `src/memdir/memory-tool/`, so the
 * extraction fork can execute the tool without depending on this door.
 */
export * from '../memdir/memory-tool/format.js';
export * from '../memdir/memory-tool/handler.js';
export * from '../memdir/memory-tool/index-sync.js';
export * from '../memdir/memory-tool/paths.js';
export * from './for-runtime.js';
