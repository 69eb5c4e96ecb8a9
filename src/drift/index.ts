export * from './check-claims.js';
export * from './claim-cache.js';
export * from './claims.js';
export * from './extract-claims.js';
export * from './project-probe.js';
export { failureText, verificationNote } from './prompts.js';
export * from './verifier.js';
