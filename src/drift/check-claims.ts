import type { Claim, ClaimCheck, FailureFacts } from './claims.js';
import type { ProjectProbe } from './project-probe.js';
import { failureText } from './prompts.js';

/** Line counting reads at most this much of a file; a citation past it is left unchecked. */
const MAX_LINE_COUNT_BYTES = 8 * 1024 * 1024;
/** Checks in flight at once: each may be a git process, and the machine is shared with the agent. */
const CHECK_CONCURRENCY = 2;

/**
 * Check each claim against the project. A check that cannot finish before `signal` aborts, or
 * whose answer is unknown, is `unchecked`, never `fails`: only the project contradicting a claim
 * counts against a memory.
 */
export async function checkClaims(
  claims: readonly Claim[],
  probe: ProjectProbe,
  signal?: AbortSignal,
): Promise<ClaimCheck[]> {
  const results: ClaimCheck[] = claims.map((claim) => ({ claim, status: 'unchecked' }));
  // A probe that hangs (a slow disk, a stuck git) must not hold the caller past its budget.
  const aborted = new Promise<undefined>((done) => {
    if (signal?.aborted) done(undefined);
    signal?.addEventListener('abort', () => done(undefined), { once: true });
  });
  let next = 0;
  const worker = async () => {
    while (next < claims.length && !signal?.aborted) {
      const i = next++;
      const check = await Promise.race([
        checkOne(claims[i]!, probe).catch(() => undefined),
        aborted,
      ]);
      if (check && !signal?.aborted) results[i] = check;
    }
  };
  await Promise.all(Array.from({ length: CHECK_CONCURRENCY }, worker));
  return results;
}

async function checkOne(claim: Claim, probe: ProjectProbe): Promise<ClaimCheck> {
  const result = (holds: boolean | undefined, facts: FailureFacts = {}): ClaimCheck =>
    holds === undefined
      ? { claim, status: 'unchecked' }
      : holds
        ? { claim, status: 'holds' }
        : { claim, status: 'fails', detail: failureText(claim, facts) };
  switch (claim.kind) {
    case 'path': {
      const found = await locate(claim.path, probe);
      return result(found === undefined ? undefined : found.length > 0);
    }
    case 'line': {
      const found = await locate(claim.path, probe);
      if (found === undefined) return result(undefined);
      if (found.length === 0) return result(false, { missing: true });
      let longest = 0;
      for (const file of found) {
        const lines = await lineCount(file, probe);
        if (lines === undefined) return result(undefined);
        longest = Math.max(longest, lines);
      }
      return result(claim.line <= longest, { lines: longest });
    }
    case 'identifier':
      return result(await probe.contains(claim.identifier));
    case 'script':
      return result(await hasScript(claim.script, probe));
  }
}

/**
 * The project files a path names: itself when it has a folder part, else every file of that
 * name anywhere. Existence is asked through the confinement: a credential location or a link
 * out of the project is "cannot tell" (undefined), never looked at. Undefined too when the
 * project could not be listed.
 */
async function locate(path: string, probe: ProjectProbe): Promise<string[] | undefined> {
  const clean = path.replace(/\/+$/, '');
  const direct = await probe.exists(clean);
  if (direct === undefined) return undefined;
  if (direct) return [clean];
  // A bare name may live anywhere; a path may be cited from a package inside a monorepo.
  const files = await probe.files();
  const named = files.filter((f) => f === clean || f.endsWith(`/${clean}`));
  const present: string[] = [];
  for (const f of named.slice(0, 20)) {
    const found = await probe.exists(f);
    if (found === undefined) return undefined;
    if (found) present.push(f);
  }
  return present;
}

async function lineCount(file: string, probe: ProjectProbe): Promise<number | undefined> {
  const text = await probe.readText(file, MAX_LINE_COUNT_BYTES);
  if (text === undefined) return undefined;
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

async function hasScript(script: string, probe: ProjectProbe): Promise<boolean | undefined> {
  const manifests = (await probe.files())
    .filter((f) => f === 'package.json' || f.endsWith('/package.json'))
    .filter((f) => !f.includes('node_modules/'))
    .slice(0, 50);
  if (manifests.length === 0) return undefined; // not an npm project: nothing to contradict
  for (const file of manifests) {
    const text = await probe.readText(file, 1024 * 1024);
    try {
      const scripts = (JSON.parse(text ?? '{}') as { scripts?: Record<string, unknown> }).scripts;
      if (scripts && Object.hasOwn(scripts, script)) return true;
    } catch {
      // an unreadable manifest says nothing
    }
  }
  return false;
}
