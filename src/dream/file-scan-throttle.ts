import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ScanThrottleStore } from './dreamer.js';

/**
 * A scan throttle that survives the process: the file's mtime is the last scan. For hosts that run
 * one process per turn (Claude Code's Stop hook), where an in-memory throttle would never hold.
 * A store that cannot be read or written throttles nothing, and never fails the turn.
 */
export function fileScanThrottle(path: string): ScanThrottleStore {
  return {
    lastScanAtMs() {
      try {
        return statSync(path).mtimeMs;
      } catch {
        return undefined; // never scanned, or unreadable: do not throttle
      }
    },
    recordScan(atMs) {
      try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        writeFileSync(path, '', { mode: 0o600 });
        utimesSync(path, atMs / 1000, atMs / 1000);
      } catch {
        // Best effort: without it the next turn scans again, which is slower but correct.
      }
    },
  };
}
