/**
 * The one error type engram throws at I/O and validation boundaries.
 * Each layer adds its codes to this union; the CLI maps codes to exit status.
 */
export type EngramErrorCode =
  | 'invalid_path'
  | 'invalid_input'
  | 'not_found'
  | 'already_exists'
  | 'io_error'
  | 'lock_timeout'
  | 'not_regular_file'
  | 'too_large'
  | 'deadline'
  | 'settings_error'
  | 'no_model'
  | 'model_error'
  | 'aborted'
  | 'refused'
  | 'missing_dependency';

export class EngramError extends Error {
  readonly code: EngramErrorCode;

  constructor(code: EngramErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngramError';
    this.code = code;
  }
}

export function isEngramError(value: unknown, code?: EngramErrorCode): value is EngramError {
  return value instanceof EngramError && (code === undefined || value.code === code);
}

/** Narrow an unknown thrown value to a Node errno code, if it carries one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
