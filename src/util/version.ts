// Generated from package.json by scripts/sync-version.mjs (run by npm run build): do not edit.
export const ENGRAM_VERSION = '0.1.0';
