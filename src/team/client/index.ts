export * from './batches.js';
export * from './config.js';
export * from './failure.js';
export * from './http-client.js';
export * from './sync-state.js';
export * from './team-files.js';
export * from './team-sync.js';
export * from './watcher.js';
