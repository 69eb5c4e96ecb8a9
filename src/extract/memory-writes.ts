/**
 * Which files a tool call writes, and whether the main agent already wrote memories.
 *
 * The background extractor must stay out of the way when the main agent saved memories itself in
 * the same stretch of conversation (it had the full context, so its save is the better one, and a
 * second save would duplicate it). Detection reads the assistant's tool_use blocks, so it works for
 * any host that records them: Claude Code's file tools, engram's own file tools, text-editor style
 * tools and the Anthropic API memory tool. All functions here are pure.
 */
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { USER_LAYER_FOLDER } from '../config/memory-chain.js';
import type { Message } from '../llm/types.js';
import { memoryFileName } from '../memdir/memory-file.js';

export interface WritePathContext {
  /** Absolute memory directory; the memory tool's `/memories` root maps onto it. */
  memoryDir: string;
  /** Directory that relative tool paths are resolved against. */
  cwd: string;
  /** Other spellings of the memory directory (its realpath when it sits behind a symlink). */
  memoryDirAliases?: readonly string[];
  /** The user layer's directory, when writes may go there too (the memory tool's `/memories/user`). */
  userDir?: string;
  /** Other spellings of the user directory. */
  userDirAliases?: readonly string[];
}

/** A file a tool call wrote, with the layer whose directory holds it. */
export interface LayeredPath {
  layer: 'project' | 'user';
  /** Relative to the layer's directory, `/`-separated. */
  file: string;
  /** Absolute. */
  path: string;
}

/** Claude Code and generic file tools whose input names the file they create or change. */
const FILE_WRITE_TOOLS = new Set([
  'write',
  'edit',
  'multiedit',
  'notebookedit',
  'create',
  'create_file',
  'write_file',
  'edit_file',
]);

/** Tools driven by a `command` field; only these commands change files (`view` only reads). */
const COMMAND_TOOLS = new Set(['memory', 'str_replace_editor', 'str_replace_based_edit_tool']);
const WRITING_COMMANDS = new Set(['create', 'str_replace', 'insert', 'delete', 'rename']);

/**
 * engram's own MCP tools that change the memory directory, bare or as Claude Code names MCP tools
 * (`mcp__<server>__memory_save`). They always write into the directory they serve.
 */
const ENGRAM_WRITE_TOOL = /^(?:mcp__.+__)?memory_(save|revoke)$/;

/** The virtual root the Anthropic memory tool uses for every path. */
const MEMORY_TOOL_ROOT = '/memories';

function stringProp(input: unknown, key: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function mapMemoryToolPath(path: string, context: WritePathContext): string | undefined {
  const norm = normalize(path);
  if (norm === MEMORY_TOOL_ROOT) return resolve(context.memoryDir);
  if (!norm.startsWith(`${MEMORY_TOOL_ROOT}/`)) return undefined; // the tool rejects these anyway
  const rel = norm.slice(MEMORY_TOOL_ROOT.length + 1);
  const [first, ...rest] = rel.split('/');
  if (context.userDir !== undefined && first === USER_LAYER_FOLDER)
    return resolve(join(context.userDir, ...rest));
  return resolve(join(context.memoryDir, rel));
}

/**
 * Absolute paths a tool call would create, change, delete or rename (both ends of a rename).
 * Read-only calls and unknown tools give `[]`.
 */
export function writeTargets(
  toolName: string,
  input: unknown,
  context: WritePathContext,
): string[] {
  const name = toolName.toLowerCase();
  const engram = ENGRAM_WRITE_TOOL.exec(name);
  if (engram) {
    // memory_save derives the file from the name when none is given; memory_revoke accepts a
    // file, its stem or the memory's name. Either way the write lands in the memory directory.
    const file = stringProp(input, 'file');
    const named = file ?? memoryFileName(stringProp(input, 'name') ?? 'memory');
    const dir =
      stringProp(input, 'scope') === 'user' && context.userDir !== undefined
        ? context.userDir
        : context.memoryDir;
    return [resolve(dir, named.endsWith('.md') ? named : `${named}.md`)];
  }
  if (FILE_WRITE_TOOLS.has(name)) {
    const path =
      stringProp(input, 'file_path') ??
      stringProp(input, 'notebook_path') ??
      stringProp(input, 'path');
    return path === undefined ? [] : [resolve(context.cwd, path)];
  }
  if (COMMAND_TOOLS.has(name)) {
    const command = stringProp(input, 'command');
    if (command === undefined || !WRITING_COMMANDS.has(command)) return [];
    const raw = [
      stringProp(input, 'path'),
      stringProp(input, 'old_path'),
      stringProp(input, 'new_path'),
    ];
    const paths = raw.filter((p): p is string => p !== undefined);
    if (name === 'memory') {
      return paths
        .map((p) => mapMemoryToolPath(p, context))
        .filter((p): p is string => p !== undefined);
    }
    return paths.map((p) => resolve(context.cwd, p));
  }
  return [];
}

/** True when `path` is `dir` itself or lies below it (lexically; no `..` escapes). */
export function isInsideDir(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The memory-directory-relative path of `path`, or undefined when it lies outside. */
export function memoryRelativePath(path: string, context: WritePathContext): string | undefined {
  for (const dir of [context.memoryDir, ...(context.memoryDirAliases ?? [])]) {
    if (isInsideDir(path, dir)) return relative(resolve(dir), resolve(path)).split(sep).join('/');
  }
  return undefined;
}

/**
 * The layer whose directory holds `path` (the innermost, when one directory sits inside the other)
 * and the path relative to it; undefined when it lies in neither.
 */
export function layeredPath(path: string, context: WritePathContext): LayeredPath | undefined {
  const layers: Array<{ layer: LayeredPath['layer']; dirs: readonly string[] }> = [
    { layer: 'project', dirs: [context.memoryDir, ...(context.memoryDirAliases ?? [])] },
    ...(context.userDir === undefined
      ? []
      : [{ layer: 'user' as const, dirs: [context.userDir, ...(context.userDirAliases ?? [])] }]),
  ];
  let best: (LayeredPath & { depth: number }) | undefined;
  for (const { layer, dirs } of layers) {
    for (const dir of dirs) {
      if (!isInsideDir(path, dir)) continue;
      const depth = resolve(dir).length;
      if (best !== undefined && best.depth >= depth) continue;
      const file = relative(resolve(dir), resolve(path)).split(sep).join('/');
      best = { layer, file, path: resolve(path), depth };
    }
  }
  return best === undefined ? undefined : { layer: best.layer, file: best.file, path: best.path };
}

/**
 * How a written file is named in lists of saved files: relative to the project memory directory,
 * or by its absolute path when it is in another layer's directory. Pure.
 */
export function savedFileName(saved: LayeredPath): string {
  return saved.layer === 'project' ? saved.file : saved.path;
}

/**
 * Paths inside the memory directories that the assistant wrote in `messages[start..]`
 * (memory-directory-relative, a user-layer file by its absolute path; in order of first
 * appearance).
 */
export function memoryWritesIn(
  messages: readonly Message[],
  start: number,
  context: WritePathContext,
): string[] {
  const found: string[] = [];
  for (const message of messages.slice(start)) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      for (const target of writeTargets(block.name, block.input, context)) {
        const at = layeredPath(target, context);
        const name = at === undefined ? undefined : savedFileName(at);
        if (name !== undefined && !found.includes(name)) found.push(name);
      }
    }
  }
  return found;
}
