import { createRequire } from 'node:module';

let loaded: typeof import('node:child_process') | undefined;

/**
 * `node:child_process`, loaded on first use. A prompt's hook process rarely starts a child (a
 * detached refresh, git for a check), and loading the module (with net, dgram and streams) cost
 * it about as much as the rest of Node's own start-up. Synchronous, for the synchronous callers.
 */
export function childProcess(): typeof import('node:child_process') {
  loaded ??= createRequire(import.meta.url)(
    'node:child_process',
  ) as typeof import('node:child_process');
  return loaded;
}
