/**
 * Load one instruction file and, depth first, the files it includes with `@path`. Never throws:
 * every reason a file does not load is either silent by design (absent, already loaded) or
 * reported so the host can tell the user.
 */
import { realpath } from 'node:fs/promises';
import { extname } from 'node:path';
import picomatch from 'picomatch';
import { type Confinement, ConfinementError } from '../confine/index.js';
import { errnoCode } from '../util/errors.js';
import {
  LARGE_FILE_CHARS,
  MARKDOWN_EXTENSIONS,
  MAX_FILE_BYTES,
  MAX_INCLUDE_DEPTH,
  TEXT_FILE_NAMES,
} from './constants.js';
import { comparisonKey, isTextFilePath, resolveIncludePath } from './include-path.js';
import { extractIncludeReferences } from './markdown.js';
import { processInstructionText } from './process-text.js';
import type { InstructionReport, InstructionType, LoadedInstructionFile } from './types.js';

export interface LoadContext {
  homedir: string;
  /** Exclude globs (absolute paths); never applied to managed files. */
  excludes: readonly string[];
  /** Comparison keys of files already loaded or attempted: each file loads once. */
  seen: Set<string>;
  reports: InstructionReport[];
}

/** What a discovered file passes on to everything it includes. */
export interface Chain {
  type: InstructionType;
  /** Reads the file and everything it includes: the folders they may come from, the deny-list. */
  confinement: Confinement;
  /**
   * Set when the file's includes read through a narrower confinement than the file itself (a
   * folder above the project that does not vouch for its neighbours, see `ancestorTrust`).
   */
  includes?: Confinement;
  /** Set when the file loads only if one of these user ids owns it (checked on the file read). */
  owners?: readonly number[];
  /** Set for files of a rules folder: `paths:` frontmatter is honoured, relative to this folder. */
  ruleBaseDir?: string;
  /** Set once a conditional rule was found: its includes apply under the same globs. */
  conditional?: { globs: string[]; baseDir: string };
}

type Report = (
  kind: InstructionReport['kind'],
  severity: InstructionReport['severity'],
  message: string,
) => void;

export async function loadInstructionFile(
  ctx: LoadContext,
  path: string,
  chain: Chain,
  depth = 0,
  parent?: string,
): Promise<LoadedInstructionFile[]> {
  const report: Report = (kind, severity, message) =>
    ctx.reports.push({ kind, severity, path, ...(parent ? { parent } : {}), message });
  if (depth > MAX_INCLUDE_DEPTH) {
    report(
      'include-too-deep',
      'warning',
      `Not included: nested more than ${MAX_INCLUDE_DEPTH} includes deep.`,
    );
    return [];
  }
  const raw = await admit(ctx, path, chain, parent, report);
  if (raw === undefined) return [];
  const { real } = raw;
  const { file, childChain, markdown } = buildFile(path, real, raw, chain, depth, parent, report);
  // A conditional rule is itself part of its conditional chain: an include cycle back to it stops.
  if (file.conditional) ctx.seen.add(`conditional:${comparisonKey(real)}`);
  const included: LoadedInstructionFile[] = [];
  if (markdown) {
    for (const reference of extractIncludeReferences(file.content)) {
      if (!looksLikePath(reference)) continue; // "@alice", "@here": mentions, not files
      const target = resolveIncludePath(reference, path, ctx.homedir);
      included.push(...(await loadInstructionFile(ctx, target, childChain, depth + 1, path)));
    }
  }
  // Included text comes first so the including file, which uses it, is read last and weighs most.
  return [...included, file];
}

/**
 * Read a file through its chain's confinement, or report why not (absent discovered files and
 * files already loaded are silent by design). The confinement walks the path physically with
 * O_NOFOLLOW and reads the file it checked, so a link swapped in after a check never leads out.
 */
async function admit(
  ctx: LoadContext,
  path: string,
  chain: Chain,
  parent: string | undefined,
  report: Report,
): Promise<{ real: string; text: string; size: number } | undefined> {
  const isInclude = parent !== undefined;
  // Loading under a conditional rule's globs does not count for unconditional loading: a plain
  // rule that a `paths:` rule happens to include must still load everywhere.
  const keyOf = (real: string) =>
    `${chain.conditional ? 'conditional' : 'always'}:${comparisonKey(real)}`;
  if (!isInclude) {
    // A discovered file that is absent, or already loaded through another name (the user's
    // ~/.claude/CLAUDE.md is also the project's when the project is ~), is silent. Includes are
    // judged first, so a refused include is refused whether or not it exists.
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      const code = errnoCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        report('unreadable', 'warning', `Cannot resolve: ${code ?? String(error)}.`);
      return undefined;
    }
    if (ctx.seen.has(keyOf(real))) return undefined;
  }
  const read = await readConfined(path, chain, parent, isInclude, report);
  if (read === undefined) return undefined;
  const key = keyOf(read.real);
  if (ctx.seen.has(key)) return undefined; // the same file via a symlink, a cycle or a 2nd include
  // Counted as seen only once read: a refusal here cannot hide it from a file allowed to include it.
  ctx.seen.add(key);
  if (isInclude && !isTextFilePath(read.real)) {
    report(
      'include-not-text',
      'info',
      `Not included: ${read.real} is not a text file by extension.`,
    );
    return undefined;
  }
  if (chain.type !== 'managed' && isExcluded(ctx.excludes, [path, read.real])) {
    report('excluded', 'info', 'Excluded by instructionExcludes.');
    return undefined;
  }
  return read;
}

function buildFile(
  path: string,
  real: string,
  raw: { text: string; size: number },
  chain: Chain,
  depth: number,
  parent: string | undefined,
  report: Report,
): { file: LoadedInstructionFile; childChain: Chain; markdown: boolean } {
  const markdown = MARKDOWN_EXTENSIONS.has(extname(real).toLowerCase());
  const processed = processInstructionText(raw.text, {
    markdown,
    rule: chain.ruleBaseDir !== undefined && parent === undefined,
  });
  if (processed.frontmatterError) {
    // A rule whose paths: cannot be read would otherwise load everywhere without anyone knowing.
    report(
      'bad-frontmatter',
      'warning',
      `Frontmatter is not valid YAML (${processed.frontmatterError.split('\n')[0]}); it was dropped and any paths: globs ignored.`,
    );
  }
  // The trust of the folder a file was found in stops at the file: includes get the narrower view.
  const { includes, owners: _owners, ...rest } = chain;
  const inherited: Chain = includes ? { ...rest, confinement: includes } : rest;
  const childChain: Chain =
    processed.globs && chain.ruleBaseDir
      ? { ...inherited, conditional: { globs: processed.globs, baseDir: chain.ruleBaseDir } }
      : inherited;
  const { conditional } = childChain;
  const file: LoadedInstructionFile = {
    path,
    realPath: real,
    type: chain.type,
    content: processed.content,
    ...(parent ? { parent } : {}),
    depth,
    ...(conditional ? { globs: conditional.globs, baseDir: conditional.baseDir } : {}),
    conditional: conditional !== undefined,
    contentDiffersFromDisk: processed.differsFromDisk,
    size: raw.size,
    chars: processed.content.length,
    tooLarge: processed.content.length > LARGE_FILE_CHARS,
  };
  if (file.tooLarge) {
    report(
      'too-large',
      'warning',
      `Loaded, but ${file.chars.toLocaleString('en-US')} characters is over ${LARGE_FILE_CHARS.toLocaleString('en-US')}: it takes a large share of the context. Shorten it or split it into rules with paths: globs.`,
    );
  }
  return { file, childChain, markdown };
}

async function readConfined(
  path: string,
  chain: Chain,
  parent: string | undefined,
  isInclude: boolean,
  report: Report,
): Promise<{ real: string; text: string; size: number } | undefined> {
  const { confinement } = chain;
  try {
    if (isInclude && !isTextFilePath(path)) {
      // Judged like any include first: a refused path is reported as refused, text or not.
      await confinement.check(path, 'read');
      report(
        'include-not-text',
        'info',
        'Not included: only text files are included (decided by extension).',
      );
      return undefined;
    }
    const read = await confinement.readText(path, { maxBytes: MAX_FILE_BYTES });
    // Judged on the file read, not a stat before it: a file swapped in after a look is still caught.
    if (chain.owners && !chain.owners.includes(read.uid)) {
      report(
        'refused',
        'warning',
        `Not loaded: it sits in a folder above the project and outside your home, and belongs to user id ${read.uid}, neither you nor root; anyone who can write that folder could otherwise instruct your agent.`,
      );
      return undefined;
    }
    // Nobody may read it: skipped the same way whoever runs engram (root reads it regardless).
    if ((read.mode & 0o444) === 0 && process.platform !== 'win32') {
      report(
        'unreadable',
        'warning',
        'Skipped: cannot read (EACCES: the file has no read permission).',
      );
      return undefined;
    }
    return { real: read.physical, text: read.text, size: read.size };
  } catch (error) {
    const code = errnoCode(error);
    if (error instanceof ConfinementError) await reportRefusal(path, chain, parent, error, report);
    else if (code === 'ENOENT' || code === 'ENOTDIR') {
      if (isInclude) report('include-missing', 'info', 'Included file not found.');
    } else if (code === 'EISDIR') report('not-a-file', 'warning', 'Skipped: not a regular file.');
    else report('unreadable', 'warning', `Skipped: cannot read (${code ?? String(error)}).`);
    return undefined;
  }
}

/**
 * The read refused the file: too big, not a regular file, or not this chain's to read. A second
 * look, without reading, tells which; it decides nothing, the read already refused.
 */
async function reportRefusal(
  path: string,
  chain: Chain,
  parent: string | undefined,
  error: ConfinementError,
  report: Report,
): Promise<void> {
  const found = await chain.confinement.info(path).catch(() => undefined);
  if (found && found.kind !== 'file')
    report('not-a-file', 'warning', 'Skipped: not a regular file.');
  else if (found && found.size > MAX_FILE_BYTES)
    report(
      'skipped-too-big',
      'warning',
      `Skipped: ${found.size} bytes is over the ${MAX_FILE_BYTES}-byte limit.`,
    );
  else report('refused', 'warning', refusalMessage(path, parent, error.reason));
}

function looksLikePath(reference: string): boolean {
  return /[/\\.]/.test(reference) || TEXT_FILE_NAMES.has(reference);
}

function isExcluded(patterns: readonly string[], paths: string[]): boolean {
  if (patterns.length === 0) return false;
  return paths.some((p) =>
    picomatch.isMatch(p.replaceAll('\\', '/'), [...patterns], { dot: true }),
  );
}

function refusalMessage(resolved: string, parent: string | undefined, reason: string): string {
  const what = parent ? `included from ${parent}, ${resolved}` : resolved;
  return `Refused: ${what}: ${reason}. A project's files may include files inside the project; Claude Code asks before loading an import from outside it, and engram, which cannot ask, loads one only when "allowExternalIncludes" in your user settings lists its folder. Credential locations are never included.`;
}
