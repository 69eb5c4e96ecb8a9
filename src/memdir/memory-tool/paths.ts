/** The virtual root the Anthropic memory tool speaks in. */
export const MEMORY_TOOL_ROOT = '/memories';

export type MemoryToolPath =
  | {
      ok: true /** Relative to the memory directory with `/` separators; '' for the root. */;
      rel: string;
    }
  | { ok: false; error: string };

/**
 * Decode %XX repeatedly (double encoding is a classic bypass). A `%` that is not an escape (as in
 * `100%.md`) stops decoding: such text is a literal name on disk and cannot spell `..` or `/`.
 */
function fullyDecoded(text: string): string {
  let current = text;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/**
 * Map a tool path onto the memory directory, refusing everything that could leave it. Pure.
 * The official reference implementation checks `startsWith('/memories')`, which also admits
 * `/memoriesX/...`; here the root must be followed by `/` or nothing. Traversal is refused in
 * every spelling a model or an attacker might use: `..` segments, percent-encoded dots or
 * slashes (also double-encoded), backslashes (Windows separators) and NUL.
 */
export function parseMemoryToolPath(
  path: unknown,
  root: string = MEMORY_TOOL_ROOT,
): MemoryToolPath {
  if (typeof path !== 'string' || path === '') {
    return { ok: false, error: `A path is required and must start with ${root}.` };
  }
  if (path.includes('\0'))
    return { ok: false, error: `The path ${JSON.stringify(path)} contains a NUL byte.` };
  if (path !== root && !path.startsWith(`${root}/`)) {
    return { ok: false, error: `Path must start with ${root}, got: ${path}` };
  }
  if (path.includes('\\')) {
    // Not a separator here, but a model or a Windows habit may mean it as one: say so plainly.
    const climbs = path.split(/[\\/]/).some((s) => s === '..' || s === '.');
    return {
      ok: false,
      error: climbs
        ? `Path ${path} would escape /memories directory (a backslash is not a separator here; use /)`
        : `Path ${path} contains a backslash; use / to separate folders.`,
    };
  }
  const decoded = fullyDecoded(path);
  if (decoded.includes('\\') || decoded.includes('\0')) {
    return { ok: false, error: `Path ${path} encodes a backslash or NUL.` };
  }
  const rawSegments = path.slice(root.length).split('/');
  const decodedSegments = decoded.slice(root.length).split('/');
  const traversal = (s: string) => s === '..' || s === '.';
  if (rawSegments.some(traversal) || decodedSegments.some(traversal)) {
    return { ok: false, error: `Path ${path} would escape /memories directory` };
  }
  if (decodedSegments.length !== rawSegments.length) {
    // An encoded slash would make the model's path and the file on disk disagree.
    return { ok: false, error: `Path ${path} contains an encoded path separator.` };
  }
  const rel = rawSegments.filter((s) => s !== '').join('/');
  return { ok: true, rel };
}

/** The tool path for a relative path, as results show it. */
export function toolPathOf(rel: string, root: string = MEMORY_TOOL_ROOT): string {
  return rel === '' ? root : `${root}/${rel}`;
}
