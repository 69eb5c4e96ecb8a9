/**
 * Where an `@path` points and whether it is text. Pure functions of paths.
 */
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { TEXT_FILE_EXTENSIONS, TEXT_FILE_NAMES } from './constants.js';

/** Resolve `@./x`, `@x`, `@../x` (relative to the including file), `@~/x` and `@/abs/x`. */
export function resolveIncludePath(
  reference: string,
  includingFile: string,
  homedir: string,
): string {
  if (reference.startsWith('~/')) return join(homedir, reference.slice(2));
  if (isAbsolute(reference)) return resolve(reference);
  return resolve(dirname(includingFile), reference);
}

/** Text by extension (or a well-known extensionless name such as README); binary never. */
export function isTextFilePath(path: string): boolean {
  const name = basename(path);
  const ext = extname(name).toLowerCase();
  if (ext === '') return TEXT_FILE_NAMES.has(name);
  return TEXT_FILE_EXTENSIONS.has(ext);
}

/** A path key under which one file loads once; case-insensitive file systems fold case. */
export function comparisonKey(
  realPath: string,
  platform: NodeJS.Platform = process.platform,
): string {
  return platform === 'darwin' || platform === 'win32' ? realPath.toLowerCase() : realPath;
}
