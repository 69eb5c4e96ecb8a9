import type { Claim, IdentifierRole } from './claims.js';

/** Checking is bounded per memory: a memory that names fifty files is rare, and a turn is not. */
export const MAX_CLAIMS_PER_MEMORY = 20;

/**
 * Extensions a bare name (`package.json`, `render.ts`) must carry to count as a file: without a
 * slash, `example.com` or `e.g.` would otherwise read as files.
 */
const FILE_EXTENSIONS = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonc md mdx py pyi rs go java kt kts scala rb php c h cc ' +
    'cpp cxx hpp hh cs fs swift m mm sh bash zsh fish ps1 yml yaml toml ini cfg conf env lock ' +
    'css scss sass less html htm vue svelte astro sql graphql gql proto txt csv xml gradle ' +
    'dockerfile tf hcl lua ex exs erl hs ml clj dart r jl zig nim sol wasm'
  ).split(' '),
);

/** Programs whose first argument is a package script (`npm run bench`, `yarn build`). */
const SCRIPT_RUNNERS = /^(?:npm|pnpm|yarn|bun)\s+(?:run\s+|run-script\s+)?([\w:.-]+)\b/;
/** Subcommands of those programs that are not scripts. */
const RUNNER_BUILTINS = new Set(
  'install i ci add remove rm uninstall update up init create exec dlx x publish pack link unlink test t start version view info outdated audit login whoami config set get why ls list'.split(
    ' ',
  ),
);

const PATH_CHARS = String.raw`[\w@+.-]`;
/** `src/render.ts`, `./lib/x.py`, `docs/` (a slash is required outside backticks). */
const SLASHED_PATH = new RegExp(
  String.raw`(?<![\w@+.:/-])(?:\.{1,2}/)?(?:${PATH_CHARS}+/)+${PATH_CHARS}+\.[A-Za-z][A-Za-z0-9]{0,9}(?![\w/])`,
  'g',
);
/** `path:142`, `path:142-150`, `path#L142` (the path part may be a bare file name). */
const LINE_CITATION = new RegExp(
  String.raw`(?<![\w@+.:/-])((?:\.{1,2}/)?(?:${PATH_CHARS}+/)*${PATH_CHARS}+\.[A-Za-z][A-Za-z0-9]{0,9})(?::|#L)(\d{1,7})(?:[-–:]L?\d{1,7})?(?!\d)`,
  'g',
);

/**
 * The claims a memory's body makes that the project can confirm or contradict: file paths,
 * `file:line` citations, and identifiers in backticks. Fenced code blocks are skipped (a snippet
 * is an illustration, not a claim about where things are). At most `max`, first come first.
 * Pure.
 */
export function extractClaims(body: string, max = MAX_CLAIMS_PER_MEMORY): Claim[] {
  const claims = new Map<string, Claim>();
  const add = (claim: Claim | undefined) => {
    if (claim === undefined || claims.size >= max) return;
    const key = claimKey(claim);
    if (!claims.has(key)) claims.set(key, claim);
  };
  const prose = withoutFencedBlocks(body);
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
  const outside = prose.replace(/`[^`\n]+`/g, ' ');
  const lineCited = new Set<string>();
  for (const text of [...spans, outside]) {
    for (const m of text.matchAll(LINE_CITATION)) {
      const path = normalizePath(m[1]!);
      if (path === undefined || !isFileLike(path)) continue;
      lineCited.add(path);
      add({ kind: 'line', text: m[0], path, line: Number(m[2]) });
    }
  }
  for (const span of spans) {
    for (const claim of claimsInSpan(span)) {
      if (claim.kind === 'path' && lineCited.has(claim.path)) continue;
      add(claim);
    }
  }
  for (const m of outside.matchAll(SLASHED_PATH)) {
    const path = normalizePath(m[0]);
    if (path !== undefined && !lineCited.has(path) && !isUrlContext(outside, m.index ?? 0)) {
      add({ kind: 'path', text: m[0], path });
    }
  }
  return [...claims.values()];
}

function claimKey(claim: Claim): string {
  switch (claim.kind) {
    case 'path':
      return `path:${claim.path}`;
    case 'line':
      return `line:${claim.path}:${claim.line}`;
    case 'identifier':
      return `id:${claim.identifier}`;
    case 'script':
      return `script:${claim.script}`;
  }
}

function withoutFencedBlocks(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?(?:^\1[^\n]*$|(?![\s\S]))/gm, '');
}

function isUrlContext(text: string, index: number): boolean {
  const before = text.slice(Math.max(0, index - 200), index);
  return /(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S*$/i.test(before);
}

/** Relative, `/`-separated, without `./`; undefined for what cannot name a project file. */
function normalizePath(raw: string): string | undefined {
  let path = raw.trim().replace(/^\.\//, '');
  if (path.startsWith('~') || path.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(path)) {
    return undefined; // home, absolute or URL: not a claim about this project's tree
  }
  path = path.replace(/\/{2,}/g, '/');
  if (path === '' || path.split('/').includes('..') || path.includes('\0')) return undefined;
  return path;
}

function isFileLike(path: string): boolean {
  if (path.includes('/')) return true;
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext !== undefined && FILE_EXTENSIONS.has(ext);
}

/** One backticked span: a path, a script, an identifier, or nothing checkable. */
function claimsInSpan(span: string): Claim[] {
  const text = span.trim();
  if (/\s/.test(text)) return commandClaims(text);
  const path = pathInSpan(text);
  if (path !== undefined) return [{ kind: 'path', text, path }];
  const id = identifierInSpan(text);
  return id ? [{ kind: 'identifier', text, identifier: id.identifier, role: id.role }] : [];
}

function pathInSpan(text: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /[()<>{}[\]=,;'"*?|$]/.test(text)) return undefined;
  const path = normalizePath(text);
  if (path === undefined) return undefined;
  if (path.includes('/')) {
    // `and/or`, `a/b` are words: a folder needs a trailing slash, a file an extension.
    return path.endsWith('/') || /\.[A-Za-z][A-Za-z0-9]*$/.test(path) || path.split('/').length > 2
      ? path
      : undefined;
  }
  return isFileLike(path) ? path : undefined;
}

/** Identifier shapes distinctive enough to look for; plain words (`type`, `Memory`) are not. */
export function identifierInSpan(
  text: string,
): { identifier: string; role: IdentifierRole } | undefined {
  const flag = /^(--[a-z0-9][\w-]*)(?:=.*)?$/i.exec(text);
  if (flag) return { identifier: flag[1]!, role: 'flag' };
  const env =
    /^\$?([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])$/.exec(text) ?? /^\$([A-Z][A-Z0-9_]{2,})$/.exec(text);
  if (env) return { identifier: env[1]!, role: 'env' };
  const call = /^(?:[A-Za-z_$][\w$]*(?:\.|::|#))*([A-Za-z_$][\w$]*)\(.*\)$/.exec(text);
  if (call) return call[1]!.length >= 3 ? { identifier: call[1]!, role: 'function' } : undefined;
  if (/^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/.test(text)) return { identifier: text, role: 'class' };
  const member = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)+$/.exec(text);
  if (member) {
    const last = text.split(/\.|::|#/).at(-1)!;
    return isDistinctive(last) ? { identifier: last, role: 'symbol' } : undefined;
  }
  if (isDistinctive(text)) return { identifier: text, role: 'symbol' };
  return undefined;
}

/** camelCase, snake_case or PascalCase with two humps: not an English word. */
function isDistinctive(name: string): boolean {
  return (
    name.length >= 4 &&
    (/^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/.test(name) ||
      /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(name) ||
      /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/.test(name))
  );
}

/**
 * Programs whose flags belong to them, not to the project: `docker run --rm` says nothing about
 * this tree. Flags of other commands (the project's own CLI, most likely) are claims.
 */
const EXTERNAL_PROGRAMS = new RegExp(
  `^(?:sudo\\s+)?(?:${'npm pnpm yarn bun npx git node deno cd ls rm cp mv cat less grep rg find sed awk xargs curl wget docker docker-compose podman kubectl helm brew apt apt-get dnf pip pip3 pipx python python3 uv poetry cargo rustup go make cmake ssh scp rsync tar zip unzip gh aws gcloud az terraform jq chmod chown echo export source tsc biome eslint prettier vitest jest pytest'
    .split(' ')
    .join('|')})(?=\\s|$)`,
);

/** A backticked command: its package script, and the flags it passes. */
function commandClaims(text: string): Claim[] {
  const claims: Claim[] = [];
  const script = SCRIPT_RUNNERS.exec(text)?.[1];
  if (script !== undefined && !RUNNER_BUILTINS.has(script)) {
    claims.push({ kind: 'script', text, script });
  }
  // Flags of the project's own commands; a runner's own flags (`npm --silent`) would be noise.
  if (script === undefined && !EXTERNAL_PROGRAMS.test(text)) {
    for (const m of text.matchAll(/(?<=^|\s)(--[a-z0-9][\w-]*)/gi)) {
      claims.push({ kind: 'identifier', text: m[1]!, identifier: m[1]!, role: 'flag' });
    }
  }
  return claims;
}
