/** Server limits; all configurable. The client reads the ones a 413 reports back. */
export interface TeamLimits {
  /** Entries per repo after an upsert. */
  maxEntries: number;
  /** UTF-8 bytes per entry's content. */
  maxEntryBytes: number;
  /** Bytes of one request body, counted before it is parsed. */
  maxBodyBytes: number;
}

export const DEFAULT_TEAM_LIMITS: TeamLimits = {
  maxEntries: 2000,
  maxEntryBytes: 64 * 1024,
  maxBodyBytes: 256 * 1024,
};
