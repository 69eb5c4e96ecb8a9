/** L0: instruction files (AGENTS.md, CLAUDE.md, rules) discovered, expanded and assembled. */
export * from './cache.js';
export * from './constants.js';
export * from './include-path.js';
export * from './instruction-settings.js';
export * from './load-file.js';
export * from './load-instructions.js';
export * from './markdown.js';
export * from './process-text.js';
export * from './prompts.js';
export * from './rules-dir.js';
export * from './rules-for.js';
export * from './types.js';
