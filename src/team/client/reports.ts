import type { PushFailure } from './failure.js';

export interface SkippedKey {
  key: string;
  reason: string;
  rule?: string;
  line?: number;
  match?: string;
}

export interface PushReport {
  pushed: string[];
  skipped: SkippedKey[];
  /** Batches committed by the server. */
  batches: number;
  /** 412 answers met (each resolved by a refresh of the hashes, or reported). */
  conflicts: number;
  failure?: PushFailure;
  /** The failure cannot heal by retrying: pushes stay off until a recovery signal. */
  permanent?: boolean;
  /** Nothing was tried: an earlier permanent failure still holds. */
  suppressed?: boolean;
}

export interface PullReport {
  written: string[];
  unchanged: number;
  /** Keys from the server that were not written, and why. */
  refused: Array<{ key: string; reason: string }>;
  version?: number;
  failure?: PushFailure;
}
