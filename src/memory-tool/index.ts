export * from './format.js';
export * from './handler.js';
export * from './index-sync.js';
export * from './paths.js';
export * from './for-runtime.js';
