/**
 * Load one instruction file and, depth first, the files it includes with `@path`. Never throws:
 * every reason a file does not load is either silent by design (absent, already loaded) or
 * reported so the host can tell the user.
 */
import { realpath, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import picomatch from 'picomatch';
import { errnoCode } from '../util/errors.js';
import { readRegularFile } from '../util/regular-file.js';
import {
  LARGE_FILE_CHARS,
  MARKDOWN_EXTENSIONS,
  MAX_FILE_BYTES,
  MAX_INCLUDE_DEPTH,
  TEXT_FILE_NAMES,
} from './constants.js';
import { type Access, accessProblem } from './include-access.js';
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
  /** Where includes (and, for project and local files, the file itself) may resolve. */
  access: Access;
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
  const real = await admit(ctx, path, chain, parent, report);
  if (real === undefined) return [];
  const raw = await readText(path, report);
  if (raw === undefined) return [];
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
 * Decide whether a file may load; returns its real path, or undefined after reporting why not
 * (absent discovered files and files already loaded are silent by design).
 */
async function admit(
  ctx: LoadContext,
  path: string,
  chain: Chain,
  parent: string | undefined,
  report: Report,
): Promise<string | undefined> {
  const isInclude = parent !== undefined;
  // Checked before touching the disk, so a refused path is refused whether or not it exists.
  const problem = isInclude ? accessProblem(path, chain.access) : undefined;
  if (problem !== undefined) {
    report('refused', 'warning', refusalMessage(path, parent, problem));
    return undefined;
  }
  if (isInclude && !isTextFilePath(path)) {
    report(
      'include-not-text',
      'info',
      'Not included: only text files are included (decided by extension).',
    );
    return undefined;
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      if (isInclude) report('include-missing', 'info', 'Included file not found.');
    } else report('unreadable', 'warning', `Cannot resolve: ${code ?? String(error)}.`);
    return undefined;
  }
  // Loading under a conditional rule's globs does not count for unconditional loading: a plain
  // rule that a `paths:` rule happens to include must still load everywhere.
  const key = `${chain.conditional ? 'conditional' : 'always'}:${comparisonKey(real)}`;
  if (ctx.seen.has(key)) return undefined; // the same file via a symlink, a cycle or a 2nd include
  // Symlinks resolved: a checked-in link must not reach outside the project either. Checked before
  // the file counts as seen, so a refusal here cannot hide it from a file allowed to include it.
  const confined = isInclude || chain.type === 'project' || chain.type === 'local';
  const realProblem = confined ? accessProblem(real, chain.access) : undefined;
  if (realProblem !== undefined) {
    report('refused', 'warning', refusalMessage(real, parent, realProblem));
    return undefined;
  }
  ctx.seen.add(key);
  if (isInclude && !isTextFilePath(real)) {
    report('include-not-text', 'info', `Not included: ${real} is not a text file by extension.`);
    return undefined;
  }
  if (chain.type !== 'managed' && isExcluded(ctx.excludes, [path, real])) {
    report('excluded', 'info', 'Excluded by instructionExcludes.');
    return undefined;
  }
  return real;
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
  const childChain: Chain =
    processed.globs && chain.ruleBaseDir
      ? { ...chain, conditional: { globs: processed.globs, baseDir: chain.ruleBaseDir } }
      : chain;
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

async function readText(
  path: string,
  report: Report,
): Promise<{ text: string; size: number } | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile()) {
      report('not-a-file', 'warning', 'Skipped: not a regular file.');
      return undefined;
    }
    // Nobody may read it: skipped the same way whoever runs engram (root reads it regardless).
    if ((info.mode & 0o444) === 0 && process.platform !== 'win32') {
      report(
        'unreadable',
        'warning',
        'Skipped: cannot read (EACCES: the file has no read permission).',
      );
      return undefined;
    }
    if (info.size > MAX_FILE_BYTES) {
      report(
        'skipped-too-big',
        'warning',
        `Skipped: ${info.size} bytes is over the ${MAX_FILE_BYTES}-byte limit.`,
      );
      return undefined;
    }
    // Checked again on the opened descriptor (a FIFO swapped in after the stat must not block).
    const read = await readRegularFile(path, { maxBytes: MAX_FILE_BYTES });
    return { text: read.text, size: read.size };
  } catch (error) {
    report('unreadable', 'warning', `Skipped: cannot read (${errnoCode(error) ?? String(error)}).`);
    return undefined;
  }
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

function refusalMessage(resolved: string, parent: string | undefined, problem: string): string {
  const what = parent
    ? `included from ${parent}, but resolves to ${resolved}`
    : `resolves to ${resolved}`;
  const where =
    problem === 'outside'
      ? 'outside the project and the folders its files may read'
      : `inside ${problem}`;
  return `Refused: ${what}, ${where}. A cloned repository must not pull such files into the prompt; to allow a folder, list it in "allowExternalIncludes" in your user settings.`;
}
