/**
 * The hook runner bundle's entry (`dist/cli/bundle/hook.cjs`, see scripts/bundle-cli.mjs): the
 * in-process hook and the warm hook server, one build of the same code.
 */

export { markOneShotProcess } from '../util/process-kind.js';
export { runHookCommand } from './hook-run.js';
export { serveHooks } from './hook-server.js';
