/**
 * The memories URL: `/v1/repos/{repo}/memories[/{key}]`. The repo may be sent percent-encoded
 * (`acme%2Fwidgets`) or as plain segments; the key is every segment after `memories`.
 */
export interface MemoriesPath {
  repo: string;
  key?: string;
}

export function parseMemoriesPath(pathname: string): MemoriesPath | undefined {
  const segments = pathname.split('/');
  if (segments[0] !== '' || segments[1] !== 'v1' || segments[2] !== 'repos') return undefined;
  const at = segments.indexOf('memories', 3);
  if (at <= 3) return undefined;
  try {
    const repo = segments.slice(3, at).map(decodeURIComponent).join('/');
    const rest = segments.slice(at + 1);
    if (rest.length === 0) return { repo };
    return { repo, key: rest.map(decodeURIComponent).join('/') };
  } catch {
    return undefined; // malformed percent-encoding
  }
}

/** `If-Match: "12"` (or `W/"12"`, or a bare 12) → 12; `*` or absent → unconditional. */
export function parseIfMatch(header: string | undefined): number | 'any' | 'invalid' {
  if (header === undefined || header.trim() === '*') return 'any';
  const m = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  return m ? Number(m[1]) : 'invalid';
}

export function etagFor(version: number): string {
  return `"${version}"`;
}
