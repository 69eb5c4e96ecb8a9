import type { MemoryHeader } from './types.js';

/**
 * One line per memory, `- [type] file (ISO mtime): description`: what a selector or an agent sees
 * to decide which memories to open. Revoked memories are marked so no agent learns them again. Pure.
 */
export function formatManifestLine(m: MemoryHeader): string {
  const status = m.status === 'revoked' ? ' [revoked]' : '';
  const description = m.description ?? '(no description)';
  return `- [${m.type}] ${m.file} (${new Date(m.mtimeMs).toISOString()})${status}: ${description}`;
}

export function formatManifest(memories: readonly MemoryHeader[]): string {
  return memories.map(formatManifestLine).join('\n');
}
