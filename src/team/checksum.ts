import { createHash } from 'node:crypto';

/**
 * `sha256:<hex>` of the UTF-8 bytes. Client and server use this one function, so deciding whether
 * a key changed is plain string equality (no format conversion that could drift).
 */
export function teamChecksum(content: string): string {
  return `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;
}
