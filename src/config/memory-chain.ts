/**
 * Memory is a chain of layers, closest to the work first: the project directory, then the user
 * directory (facts about the person that hold in every project). The team layer
 * (`<memory dir>/team/`) and per-agent layers plug in as further entries of the same shape. Recall
 * and the system prompt walk the chain in order; on a name clash the earlier layer wins. Pure: plain
 * data in, plain data out, no disk.
 */
import { join } from 'node:path';

/** `project` and `user` today; `team` and `agent:<name>` are the names later layers take. */
export type MemoryLayerName = 'project' | 'user' | 'team' | `agent:${string}`;

export interface MemoryLayer {
  layer: MemoryLayerName;
  /** Absolute memory directory of the layer. */
  dir: string;
  /** Whether a host may let its agent write here without asking (the settings trust rule). */
  trusted: boolean;
  /** An agent layer's directory among the agent's three: `local`, `project` or `user`. */
  scope?: 'local' | 'project' | 'user';
}

/**
 * The folder the user layer shows as where one virtual root stands for the project directory:
 * the memory tool's `/memories/user/` is the user directory, every other `/memories/...` path is
 * the project's. A project folder of that name is shadowed there (other doors still reach it).
 */
export const USER_LAYER_FOLDER = 'user';

/** Where user-wide memories live: `$ENGRAM_HOME/user/memory`. */
export function userMemoryDir(engramHomeDir: string): string {
  return join(engramHomeDir, 'user', 'memory');
}

export interface MemoryChainInput {
  /** The project's memory directory and whether its source is trusted (from the resolution). */
  project: { dir: string; trusted: boolean };
  /** `$ENGRAM_HOME`: the user layer lives under it and is trusted like the default directory. */
  engramHome: string;
  /** Leave the user layer out (a host that wants project memory only). */
  user?: boolean;
  /**
   * Whether two directories are one (callers with a disk pass `sameDirectory`, which sees through
   * symlinks); by default the paths as written are compared.
   */
  sameDir?: (a: string, b: string) => boolean;
}

/** The ordered layers recall and the system prompt draw on. A layer never appears twice. Pure. */
export function resolveMemoryChain(input: MemoryChainInput): MemoryLayer[] {
  const layers: MemoryLayer[] = [
    { layer: 'project', dir: input.project.dir, trusted: input.project.trusted },
  ];
  const user = userMemoryDir(input.engramHome);
  const same = input.sameDir ?? ((a: string, b: string) => a === b);
  // A project directory that is the user layer's (`--dir ~/.engram/user/memory`, or a link to it)
  // is that one layer, never the same memories twice.
  if (input.user !== false && !same(user, input.project.dir)) {
    layers.push({ layer: 'user', dir: user, trusted: true });
  }
  return layers;
}

/** The layer a write with `--scope` goes to (scope `project` or `user`). Pure. */
export function layerForScope(
  chain: readonly MemoryLayer[],
  scope: 'project' | 'user',
): MemoryLayer | undefined {
  return chain.find((l) => l.layer === scope);
}
