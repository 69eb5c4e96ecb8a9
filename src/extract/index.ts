export * from './extractor.js';
export * from './memory-writes.js';
export * from './policy.js';
export * from './prompts.js';
export * from './saved-files.js';
export * from './types.js';
