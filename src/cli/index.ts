export * from './common.js';
export * from './io.js';
export * from './program.js';
