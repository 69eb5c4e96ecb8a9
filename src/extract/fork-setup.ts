/** Small pieces of setting up a fork, kept apart so the extractor's state machine stays readable. */
import { findGitLocation } from '../config/index.js';
import type { Confinement } from '../confine/index.js';
import { createFileTools } from '../llm/file-tools.js';
import { createHostFileTools } from '../llm/host-file-tools.js';
import { directoryConfinement, directorySandbox } from '../llm/sandbox.js';
import type { CanUseTool, ToolImplementation } from '../llm/types.js';
import { layerWriteLock } from '../memdir/dir-lock.js';
import { createMemoryToolHandlers, MemoryToolError } from '../memdir/memory-tool/handler.js';
import type { ExtractionContext } from './types.js';

/** YYYY-MM-DD in local time: users say "Thursday" in their own time zone. */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * Hosts keep appending to their message array while the run is in the background; the fork must
 * see the conversation as it was at the trigger, ending with the reply that completed the turn.
 */
export function snapshot(context: ExtractionContext): ExtractionContext {
  return { ...context, tools: [...context.tools], messages: [...context.messages] };
}

/** What an extraction fork may read besides its memory directory: the project it works in. */
export function forkReadRoots(hostCwd: string): string[] {
  return [findGitLocation(hostCwd)?.topLevel ?? hostCwd];
}

/**
 * The fork's one confinement: write only inside the memory directory (and the user layer's, when
 * given), read them and the project (minus the credential deny-list). Relative paths start at
 * `base`.
 */
export function forkConfinement(
  memoryDir: string,
  hostCwd: string,
  base: string,
  userDir?: string,
): Confinement {
  return directoryConfinement(memoryDir, {
    cwd: base,
    readRoots: forkReadRoots(hostCwd),
    ...(userDir === undefined ? {} : { userDir }),
  });
}

/**
 * The decision before each call, by the same rule the tools apply. With the host's own tools,
 * relative paths are judged from the host's cwd (where its executors resolve them, so the check
 * and the write agree), except the memory tool's `/memories/...`, which always maps onto the
 * directory.
 */
export function forkSandbox(
  memoryDir: string,
  hostCwd: string | undefined,
  projectCwd: string = hostCwd ?? memoryDir,
  userDir?: string,
): CanUseTool {
  const readRoots = forkReadRoots(projectCwd);
  const layers = userDir === undefined ? {} : { userDir };
  const inMemoryDir = directorySandbox(memoryDir, { readRoots, ...layers });
  if (hostCwd === undefined) return inMemoryDir;
  const fromHostCwd = directorySandbox(memoryDir, { cwd: hostCwd, readRoots, ...layers });
  return (name, input) => (name === 'memory' ? inMemoryDir(name, input) : fromHostCwd(name, input));
}

/**
 * The Anthropic memory tool over the memory directory (and the user layer as `/memories/user/`);
 * its refusals are results the model reads.
 */
function memoryToolExecutor(memoryDir: string, userDir: string | undefined): ToolImplementation {
  const handlers = createMemoryToolHandlers({
    memoryDir,
    ...(userDir === undefined ? {} : { userDir }),
  });
  return {
    definition: { name: 'memory', input_schema: { type: 'object' } },
    async execute(input) {
      const command = (input as { command?: unknown } | null)?.command;
      const handler =
        typeof command === 'string' && Object.hasOwn(handlers, command)
          ? (handlers[command as keyof typeof handlers] as (i: unknown) => Promise<string>)
          : undefined;
      if (!handler)
        return { content: `Unknown memory command "${String(command)}".`, isError: true };
      try {
        return { content: await handler(input) };
      } catch (error) {
        if (error instanceof MemoryToolError) return { content: error.message, isError: true };
        throw error;
      }
    },
  };
}

/**
 * Executors for whatever file tools the host's prefix names, rooted at the memory directory:
 * engram's (`read`, `write`, `edit`, `list`, `grep`), Claude Code's (`Read`, `Write`, `Edit`,
 * `MultiEdit`, `Grep`, `LS`) and the Anthropic memory tool (`/memories`). The fork keeps the
 * host's tool list, so it calls the host's names; every call still passes the sandbox first.
 */
export function defaultForkTools(
  memoryDir: string,
  confinement: Confinement = directoryConfinement(memoryDir),
  userDir?: string,
): ToolImplementation[] {
  // Every write of the fork takes the lock of the directory it lands in, like every other door.
  const options = { confinement, writeLock: layerWriteLock(memoryDir, userDir) };
  return [
    ...createFileTools(memoryDir, options),
    ...createHostFileTools(memoryDir, options),
    memoryToolExecutor(memoryDir, userDir),
  ];
}
