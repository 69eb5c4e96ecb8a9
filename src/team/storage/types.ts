/** One memory entry as stored: the checksum is computed once, at write time. */
export interface StoredEntry {
  key: string;
  content: string;
  checksum: string;
}

export interface RepoEntries {
  /** The repo's version, bumped by every committed write; sent as the ETag. */
  version: number;
  entries: StoredEntry[];
}

export interface RepoHashes {
  version: number;
  checksums: Record<string, string>;
}

export type PutOutcome =
  | { kind: 'ok'; version: number }
  | { kind: 'not_found' }
  | { kind: 'conflict'; version: number }
  | { kind: 'too_many_entries'; limit: number; count: number };

export type DeleteOutcome =
  | { kind: 'ok'; version: number }
  | { kind: 'not_found' }
  | { kind: 'conflict'; version: number };

export interface TokenRecord {
  repo: string;
  write: boolean;
}

/**
 * Storage behind the team server. Every implementation passes the one contract suite
 * (`contract-suite.ts`). Writes are all-or-nothing: a PUT either commits every key and bumps the
 * version once, or changes nothing.
 */
export interface TeamStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Create the repo if it does not exist (version 0). */
  ensureRepo(repo: string): Promise<void>;
  /** `undefined` when the repo does not exist. */
  getEntries(repo: string): Promise<RepoEntries | undefined>;
  getHashes(repo: string): Promise<RepoHashes | undefined>;
  /**
   * Upsert `entries` (keys not sent are kept). With `ifVersion`, the write happens only when the
   * repo is still at that version (compare-and-swap); `maxEntries` is checked on the result.
   */
  putEntries(
    repo: string,
    entries: ReadonlyArray<{ key: string; content: string }>,
    options: { ifVersion?: number; maxEntries: number },
  ): Promise<PutOutcome>;
  deleteEntry(repo: string, key: string, options?: { ifVersion?: number }): Promise<DeleteOutcome>;
  /** Tokens are stored by their hash only. */
  saveToken(tokenHash: string, record: TokenRecord): Promise<void>;
  findToken(tokenHash: string): Promise<TokenRecord | undefined>;
  close(): Promise<void>;
}
