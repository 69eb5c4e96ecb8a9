export * from './rules.js';
export * from './scan.js';
