export * from './open-memory.js';
export * from './prompts.js';
