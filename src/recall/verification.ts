/**
 * How recall asks whether a selected memory's claims still hold, without knowing how (the drift
 * layer checks them against the project). Verification never blocks a turn: recall waits at most
 * `waitMs` for it at selection time, and a memory whose verdict is not ready keeps the header it
 * would have had without verification.
 */

export interface VerifyRequest {
  /** Path relative to the memory directory. */
  file: string;
  /** The memory's whole text as read for injection. */
  content: string;
}

export interface MemoryVerdict {
  /** Claims found in the memory. */
  total: number;
  /** Claims the project could answer. */
  checked: number;
  /** Claims the project contradicts. */
  failed: number;
  /** Text frozen into the memory's header; '' when verification has nothing to say. */
  note: string;
}

export interface MemoryVerifier {
  /** Called as recall starts, so slow preparation (project state, cache) overlaps the scan. */
  prepare?(): void;
  /** Verdicts for what could be verified; never rejects. */
  verify(requests: readonly VerifyRequest[]): Promise<ReadonlyMap<string, MemoryVerdict>>;
  /** How long recall waits for `verify` at selection time; 0 = only verdicts ready at once. */
  readonly waitMs: number;
}

/** The verdicts ready within `waitMs`, or none: a late verification leaves every header as is. */
export async function verdictsWithin(
  verifier: MemoryVerifier,
  requests: readonly VerifyRequest[],
): Promise<ReadonlyMap<string, MemoryVerdict>> {
  if (requests.length === 0) return new Map();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ReadonlyMap<string, MemoryVerdict>>((done) => {
    timer = setTimeout(() => done(new Map()), Math.max(0, verifier.waitMs));
  });
  try {
    return await Promise.race([verifier.verify(requests).catch(() => new Map()), late]);
  } finally {
    clearTimeout(timer);
  }
}
