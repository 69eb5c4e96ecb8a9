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

/** Response headers that carry the server's limits on every repo request. */
export const LIMIT_HEADERS = {
  maxEntries: 'x-engram-max-entries',
  maxEntryBytes: 'x-engram-max-entry-bytes',
  maxBodyBytes: 'x-engram-max-body-bytes',
} as const satisfies Record<keyof TeamLimits, string>;

/** The limits a response announced (only well-formed positive numbers). */
export function limitsFromHeaders(headers: Headers): Partial<TeamLimits> {
  const out: Partial<TeamLimits> = {};
  for (const [name, header] of Object.entries(LIMIT_HEADERS) as Array<[keyof TeamLimits, string]>) {
    const n = Number(headers.get(header));
    if (Number.isInteger(n) && n > 0) out[name] = n;
  }
  return out;
}
