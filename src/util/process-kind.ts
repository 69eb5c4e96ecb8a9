/**
 * What kind of process this is, for code that serves both kinds the same way but may do its file
 * I/O differently:
 *
 * - `library` (the default): engram is a library inside someone else's process, which may have an
 *   event loop to keep turning. File calls go through the thread pool and long work is sliced.
 * - `one-shot`: a process that answers one request and exits (the in-process hook, a CLI
 *   command). Nothing else runs on its loop while it works, so a file call's round trip through
 *   libuv's thread pool is only waiting: its file calls are made synchronously instead (see
 *   `fs-calls.ts`). Set by those entries, never by the library.
 * - `host`: a long-running server of engram's own (the MCP server, the warm hook server, a
 *   process that prefetches recall). Like `library`; once a host, a process never becomes
 *   one-shot (a CLI command that turns into a server stays a server).
 */
export type ProcessKind = 'library' | 'one-shot' | 'host';

let kind: ProcessKind = 'library';

/** This process answers one request and exits (the hook's and the CLI's entries call this). */
export function markOneShotProcess(): void {
  if (kind === 'library') kind = 'one-shot';
}

/** This process serves for long: its loop must keep turning (MCP server, hook server, prefetch). */
export function markHostProcess(): void {
  kind = 'host';
}

export function processKind(): ProcessKind {
  return kind;
}

export function isOneShotProcess(): boolean {
  return kind === 'one-shot';
}
