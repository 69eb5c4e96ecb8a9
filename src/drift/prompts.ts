/**
 * The words verification adds to a memory's header. They are frozen with the header (seed 000
 * §7.4), so they say "when recalled", never "now", and they name what failed so the agent can
 * look instead of trusting a precise-looking citation (seed 000 §8.3).
 */
import type { Claim, FailureFacts, MemoryVerification } from './claims.js';

/** Failures named in one header; the rest are counted. */
const MAX_FAILURES_NAMED = 3;

/** What the project says against one claim, e.g. "`src/x.ts` no longer exists". Pure. */
export function failureText(claim: Claim, facts: FailureFacts = {}): string {
  switch (claim.kind) {
    case 'path':
      return `\`${claim.path}\` no longer exists`;
    case 'line':
      return facts.missing || facts.lines === undefined
        ? `\`${claim.path}\` no longer exists (cited at line ${claim.line})`
        : `\`${claim.path}\` has ${facts.lines} lines, so line ${claim.line} is not there`;
    case 'identifier':
      return `\`${claim.text}\` no longer occurs in the project`;
    case 'script':
      return `no package.json defines the script \`${claim.script}\``;
  }
}

/**
 * The line verification adds to a header, or '' when it has nothing to say: no claims, or every
 * checked claim still holds (warnings on everything get ignored, so only contradictions speak).
 * A memory whose every claim fails is still shown, since it may be history, but says so. Pure.
 */
export function verificationNote(
  v: Pick<MemoryVerification, 'checks' | 'total' | 'checked' | 'failed'>,
): string {
  if (v.failed === 0) return '';
  const failures = v.checks.flatMap((c) => (c.status === 'fails' && c.detail ? [c.detail] : []));
  const named = failures.slice(0, MAX_FAILURES_NAMED).join('; ');
  const more =
    failures.length > MAX_FAILURES_NAMED
      ? `; and ${failures.length - MAX_FAILURES_NAMED} more`
      : '';
  if (v.failed === v.checked && v.checked === v.total) {
    return `Claims checked against the project when recalled: none of ${v.total} hold; ${named}${more}. This memory may describe history: verify before relying on it.`;
  }
  return `Claims checked against the project when recalled: ${v.checked} of ${v.total} checked, ${v.failed} failed; ${named}${more}: verify before relying on this.`;
}
