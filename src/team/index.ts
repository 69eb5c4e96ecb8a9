export * from './checksum.js';
export * from './client/index.js';
export * from './keys.js';
export * from './limits.js';
export * from './secrets/index.js';
export * from './server/index.js';
export * from './storage/open-store.js';
export * from './storage/types.js';
