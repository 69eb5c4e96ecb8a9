/**
 * engram: memory for AI agents. The root entry re-exports each layer's public surface;
 * subpaths (`engram/memdir`, `engram/recall`, …) give one layer alone.
 */
export * from './config/index.js';
export * from './dream/index.js';
export * from './drift/index.js';
export * from './extract/index.js';
export * from './facade/index.js';
export * from './inject/index.js';
export * from './instructions/index.js';
export * from './llm/index.js';
export * from './memdir/index.js';
export * from './memory-tool/index.js';
export * from './recall/index.js';
export * from './runtime/index.js';
export * from './session/index.js';
export { type Clock, fixedClock, type LegacyNow, resolveClock, systemClock } from './util/clock.js';
export { EngramError, type EngramErrorCode, isEngramError } from './util/errors.js';
