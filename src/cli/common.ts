import { statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  engramHome,
  layerForScope,
  loadSettings,
  type MemoryLayer,
  mergedSettings,
  resolveMemoryChain,
} from '../config/index.js';
import { type ModelResolution, resolveModel } from '../llm/resolve-model.js';
import {
  type MemoryDirResolution,
  type MemoryDocument,
  readMemory,
  resolveMemoryRef,
} from '../memdir/index.js';
import { createEngram } from '../runtime/create-engram.js';
import type { Engram } from '../runtime/types.js';
import { EngramError, isEngramError } from '../util/errors.js';
import { sameDirectory } from '../util/same-directory.js';
import type { CliIo } from './io.js';

export interface CommonOptions {
  dir?: string;
  memoryDir?: string;
  json?: boolean;
  cwd?: string;
}

/** Thrown by a command to end with a given exit status after it printed its own output. */
export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/** Options every command shares: where the memory directory is, and machine-readable output. */
export function withCommonOptions(command: Command): Command {
  return command
    .option('--dir <path>', 'use this memory directory as it is (overrides every setting)')
    .option(
      '--memory-dir <path>',
      'set the memory directory like a trusted setting (absolute or ~/...)',
    )
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--json', 'print machine-readable JSON');
}

/**
 * This command's environment: `--cwd` replaces the working directory. It must be one: a typo
 * would otherwise get a fresh, empty project memory directory of its own (exit 3, as `instructions`).
 */
export function environmentFor(io: CliIo, options: CommonOptions): CliIo {
  if (!options.cwd) return io;
  const cwd = resolve(io.cwd, options.cwd);
  const problem = directoryProblem(cwd);
  if (problem) throw new EngramError('not_found', `${problem}: ${cwd}`);
  return { ...io, cwd };
}

/** Why `path` cannot be a working directory, or undefined when it can. */
export function directoryProblem(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : 'Not a directory';
  } catch {
    return 'No such directory';
  }
}

/**
 * A file a flag names for the command to write (`recall --log`, `compact --out`), resolved against
 * `cwd`. Its folder must exist: a typo in a path would otherwise create folders and write where
 * nobody looks. Checked before any work, so a long run never fails at its last step.
 */
export function outputFileIn(cwd: string, file: string, flag: string): string {
  const path = resolve(cwd, file);
  const problem = directoryProblem(dirname(path));
  if (problem)
    throw new EngramError(
      'not_found',
      `${flag} ${file}: ${problem.toLowerCase()} ${dirname(path)} to write it in (create it first)`,
    );
  return path;
}

/**
 * The memory directory for this command. `--dir` names one directly (relative to cwd); otherwise
 * the trusted-settings resolution applies and its warnings are printed once, to stderr.
 */
export function memoryDirFor(io: CliIo, options: CommonOptions): MemoryDirResolution {
  return runtimeFor(io, options).memoryDirResolution;
}

/**
 * The memory chain for this command: the project directory (as `memoryDirFor` resolves it), then
 * the user directory under `ENGRAM_HOME`, which is trusted like the default.
 */
export function memoryChainFor(
  io: CliIo,
  options: CommonOptions,
  resolution: MemoryDirResolution = memoryDirFor(io, options),
): MemoryLayer[] {
  return resolveMemoryChain({
    project: { dir: resolution.path, trusted: resolution.writeWithoutPrompt },
    engramHome: engramHome(environmentFor(io, options)),
    sameDir: sameDirectory,
  });
}

/**
 * The memory a command names by file, stem or name, looked up along the chain, closest layer
 * first (the project's, then the user's), as `show`, `revoke` and MCP's `memory_read` find it.
 * Throws the closest layer's `not_found` when no layer has it.
 */
export async function findInChain(
  layers: readonly MemoryLayer[],
  ref: string,
): Promise<{ layer: MemoryLayer; file: string; doc: MemoryDocument }> {
  // A path `add`, `list` or `show --json` printed names the layer whose directory holds it.
  const holding = layers.filter((l) => memoryRefIn(l.dir, ref) !== ref);
  let firstError: unknown;
  for (const layer of holding.length > 0 ? holding : layers) {
    try {
      // A name ending in .md resolves as it is, found or not: the read says whether it is there.
      const file = await resolveMemoryRef(layer.dir, memoryRefIn(layer.dir, ref));
      return { layer, file, doc: await readMemory(layer.dir, file) };
    } catch (error) {
      if (!isEngramError(error, 'not_found')) throw error;
      firstError ??= error;
    }
  }
  throw firstError;
}

/**
 * `ref` as a name inside `dir` when it is an absolute path below `dir` (the `path` the JSON outputs
 * print), else `ref` unchanged: the memory directory's confinement still judges the name.
 */
export function memoryRefIn(dir: string, ref: string): string {
  const trimmed = ref.trim();
  if (!isAbsolute(trimmed)) return ref;
  const inside = relative(resolve(dir), resolve(trimmed));
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? ref : inside;
}

/** `--scope user|project` (default project): which layer a write goes to. */
export function scopeLayer(io: CliIo, options: CommonOptions & { scope?: string }): MemoryLayer {
  const scope = options.scope ?? 'project';
  if (scope !== 'project' && scope !== 'user') {
    throw new EngramError('invalid_input', `--scope is user or project (got "${scope}")`);
  }
  const layer = layerForScope(memoryChainFor(io, options), scope);
  if (!layer) throw new EngramError('invalid_input', `no ${scope} memory layer here`);
  return layer;
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The model background commands use: the environment (`ENGRAM_MODEL`, provider keys and base URLs)
 * over the `model` settings key. One place, so every command agrees on what "configured" means.
 */
export function configuredModel(io: CliIo, options: CommonOptions): ModelResolution {
  const value = mergedSettings(loadSettings(environmentFor(io, options))).model;
  return resolveModel({
    env: io.env,
    ...(typeof value === 'string' ? { settings: { model: value } } : {}),
  });
}

/**
 * The runtime a command runs on: this command's environment (`--cwd`), memory directory (`--dir`,
 * `--memory-dir`, trusted settings; warnings printed once, to stderr) and, when asked, the
 * configured model.
 */
export function runtimeFor(
  io: CliIo,
  options: CommonOptions,
  wants: { model?: boolean } = {},
): Engram {
  const env = environmentFor(io, options);
  if (options.dir !== undefined && (options.dir.trim() === '' || options.dir.includes('\0'))) {
    throw new EngramError('invalid_path', '--dir needs a directory path');
  }
  const engram = createEngram({
    cwd: env.cwd,
    env: io.env,
    homedir: io.homedir,
    ...(options.dir !== undefined ? { memoryDir: options.dir } : {}),
    ...(options.memoryDir !== undefined ? { memoryDirFlag: options.memoryDir } : {}),
    model: wants.model ? 'configured' : null,
  });
  warnOnce(io, engram.memoryDirResolution.warnings);
  return engram;
}

/** Warnings already printed per CLI run: a command that resolves the runtime twice says each once. */
const printedWarnings = new WeakMap<CliIo, Set<string>>();

function warnOnce(io: CliIo, warnings: readonly string[]): void {
  const printed = printedWarnings.get(io) ?? new Set<string>();
  printedWarnings.set(io, printed);
  for (const w of warnings) {
    if (printed.has(w)) continue;
    printed.add(w);
    io.stderr(`engram: warning: ${w}\n`);
  }
}
