export * from './events.js';
export * from './input.js';
export * from './output.js';
export * from './prompts.js';
export * from './settings.js';
export * from './stop.js';
export * from './transcript.js';
