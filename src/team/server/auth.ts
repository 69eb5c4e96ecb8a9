import { createHash, randomBytes } from 'node:crypto';
import type { TeamStore, TokenRecord } from '../storage/types.js';

/** Tokens carry 32 random bytes; only their SHA-256 is stored, so a leaked database holds none. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Create a token for `repo` (creating the repo too) and return it; it is shown once. */
export async function createTeamToken(
  store: TeamStore,
  repo: string,
  options: { write: boolean },
): Promise<string> {
  const token = `egt_${randomBytes(32).toString('base64url')}`;
  await store.ensureRepo(repo);
  await store.saveToken(hashToken(token), { repo, write: options.write });
  return token;
}

export type AuthDecision =
  | { ok: true; record: TokenRecord }
  | { ok: false; status: 401 | 403; error: string };

/**
 * Tokens never change once created, so a found one is remembered (per store, bounded): it saves a
 * database round trip on every request, which also narrows the window between a client's hashes
 * refresh and its next PUT. Unknown tokens are not cached (one may be created at any time).
 */
const tokenCache = new WeakMap<TeamStore, Map<string, TokenRecord>>();
const TOKEN_CACHE_MAX = 1000;

async function findTokenCached(store: TeamStore, hash: string): Promise<TokenRecord | undefined> {
  let cache = tokenCache.get(store);
  if (!cache) {
    cache = new Map();
    tokenCache.set(store, cache);
  }
  const hit = cache.get(hash);
  if (hit) return hit;
  const record = await store.findToken(hash);
  if (record) {
    if (cache.size >= TOKEN_CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(hash, record);
  }
  return record;
}

/** Who may do what: a token opens its own repo only, and writes need the write right. */
export async function authorize(
  store: TeamStore,
  header: string | undefined,
  repo: string,
  needsWrite: boolean,
): Promise<AuthDecision> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return { ok: false, status: 401, error: 'missing_token' };
  const record = await findTokenCached(store, hashToken(match[1]!));
  if (!record) return { ok: false, status: 401, error: 'invalid_token' };
  if (record.repo !== repo) return { ok: false, status: 403, error: 'wrong_repo' };
  if (needsWrite && !record.write) return { ok: false, status: 403, error: 'read_only_token' };
  return { ok: true, record };
}

/** Repo names: `name` or `org/name`, plain characters only. */
export function isRepoName(repo: string): boolean {
  return (
    repo.length <= 200 && /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/.test(repo)
  );
}
