import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** The real path of `path`, or `path` resolved when it does not exist yet (or cannot be read). */
export function realpathOrSelf(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}
