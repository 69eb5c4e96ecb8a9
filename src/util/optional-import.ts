import { EngramError, errnoCode } from './errors.js';

/** True when `error` says the package `name` itself is not installed (not one of its own imports). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = errnoCode(error);
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : String(error);
  return message.includes(`'${name}'`) || message.includes(`"${name}"`);
}

/**
 * Load an optional peer dependency (a model SDK, the MCP SDK) when the feature that needs it runs.
 * Without it, an EngramError('missing_dependency') that says which package to install and why,
 * instead of Node's bare "Cannot find package".
 *
 * @example
 * const { default: OpenAI } = await importOptional('openai', 'An OpenAI model', () => import('openai'));
 */
export async function importOptional<T>(
  name: string,
  feature: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, name)) throw error;
    throw new EngramError(
      'missing_dependency',
      `${feature} needs the package ${name}, which is not installed. It is an optional peer dependency of engram: install it next to engram (npm install ${name}).`,
      { cause: error },
    );
  }
}
