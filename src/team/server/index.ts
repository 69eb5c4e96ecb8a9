export * from './app.js';
export * from './auth.js';
export * from './openapi.js';
export * from './serve.js';
