import { EngramError } from '../util/errors.js';
import { CliExit } from './common.js';

/** Exit statuses: 0 ok, 1 a check found problems or the command failed, 2 bad input, 3 not found. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CliExit) return error.exitCode;
  if (error instanceof EngramError) {
    if (error.code === 'not_found') return 3;
    if (['invalid_input', 'invalid_path', 'settings_error', 'refused'].includes(error.code))
      return 2;
    return 1;
  }
  return 1;
}
