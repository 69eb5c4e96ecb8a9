export * from './claude-code-transcript.js';
export * from './tokens.js';
export * from './types.js';
