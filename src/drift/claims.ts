/**
 * What a memory claims about the project, in a form that can be checked. A memory that cites
 * `src/render.ts:142` reads as verified fact long after the file moved (seed 000 §8.3: precision
 * is mistaken for credibility), so every such precise reference becomes a claim.
 */
export type Claim =
  /** A file or folder, relative to the project root (a bare name like `render.ts` may be anywhere). */
  | { kind: 'path'; text: string; path: string }
  /** A `file:line` (or `file:start-end`, `file#L12`) citation. */
  | { kind: 'line'; text: string; path: string; line: number }
  /** An identifier in backticks: a function, class, symbol, CLI flag or environment variable. */
  | { kind: 'identifier'; text: string; identifier: string; role: IdentifierRole }
  /** A package script run through npm, pnpm or yarn (`npm run bench`). */
  | { kind: 'script'; text: string; script: string };

export type IdentifierRole = 'function' | 'class' | 'symbol' | 'flag' | 'env';

export type ClaimStatus = 'holds' | 'fails' | 'unchecked';

export interface ClaimCheck {
  claim: Claim;
  status: ClaimStatus;
  /** Why it fails, or why it could not be checked; phrased for the header. */
  detail?: string;
}

export interface FailureFacts {
  /** The cited file is gone. */
  missing?: boolean;
  /** The cited file's length, when a line is past it. */
  lines?: number;
}

/** The checks of one memory's claims, and what they add up to. */
export interface MemoryVerification {
  file: string;
  checks: ClaimCheck[];
  total: number;
  checked: number;
  failed: number;
}

/** True for claims about where something is in the tree (the "precise" memories of seed 000 §8.3). */
export function isLocationClaim(claim: Claim): boolean {
  return claim.kind === 'path' || claim.kind === 'line';
}

/** Sum a memory's checks. Pure. */
export function summarizeChecks(file: string, checks: ClaimCheck[]): MemoryVerification {
  return {
    file,
    checks,
    total: checks.length,
    checked: checks.filter((c) => c.status !== 'unchecked').length,
    failed: checks.filter((c) => c.status === 'fails').length,
  };
}
