import { type Confinement, createConfinement } from '../confine/index.js';

/**
 * The confinement every memory-directory operation of the CLI, the MCP server and the library
 * goes through: the directory is the one writable root, and names are judged by `confine/`.
 */
export function memoryDirConfinement(dir: string): Confinement {
  return createConfinement({ roots: [{ path: dir, write: true }], base: dir });
}
