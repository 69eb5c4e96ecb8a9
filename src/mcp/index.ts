export * from './prompts.js';
export * from './server.js';
export * from './stdio.js';
export * from './tools.js';
