import { neutralizeWrapperTags } from '../confine/wrapper-text.js';
import { RECALLED_INTRO } from './prompts.js';

/** One memory as it entered the context. Stored with the conversation; never recomputed. */
export interface InjectedMemory {
  /** Path relative to the memory directory. */
  file: string;
  /** Absolute path, named in the header and in the marker. */
  path: string;
  /** Computed at selection time (relative age or staleness warning); frozen afterwards. */
  header: string;
  /** The memory text as injected: a prefix of the file, plus the truncation note when cut. */
  content: string;
  truncated: boolean;
}

/** What one turn injected: its memories and, once per session, the budget notice. */
export interface Injection {
  memories: InjectedMemory[];
  /** Set in the turn where the session budget ran out. */
  notice?: string;
}

export const INJECTION_OPEN = '<system-reminder>\n<recalled-memories>\n';
export const INJECTION_CLOSE = '</recalled-memories>\n</system-reminder>';
const MEMORY_CLOSE = '</memory>\n';

function escapeAttr(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('\n', '&#10;');
}

export function unescapeAttr(value: string): string {
  return value
    .replaceAll('&#10;', '\n')
    .replaceAll('&gt;', '>')
    .replaceAll('&lt;', '<')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');
}

function payloadOf(m: InjectedMemory): string {
  // Memory text cannot close or imitate the wrapper (idempotent: prepared memories are already so).
  return `${neutralizeWrapperTags(m.header)}\n\n${neutralizeWrapperTags(m.content)}`;
}

/**
 * One memory's section. The marker names the file and the payload's exact byte length, so a
 * reader of the history can skip the payload without interpreting it: a memory whose text
 * contains something that looks like a marker cannot fake "already surfaced". Pure.
 */
export function renderMemorySection(m: InjectedMemory): string {
  const payload = payloadOf(m);
  const bytes = Buffer.byteLength(payload, 'utf8');
  const open = `<memory file="${escapeAttr(m.file)}" path="${escapeAttr(m.path)}" bytes="${bytes}"${m.truncated ? ' truncated="true"' : ''}>\n`;
  return `${open}${payload}${payload.endsWith('\n') ? '' : '\n'}${MEMORY_CLOSE}`;
}

/** Bytes a memory adds to the session total: its whole section, markers included. Pure. */
export function memorySectionBytes(m: InjectedMemory): number {
  return Buffer.byteLength(renderMemorySection(m), 'utf8');
}

function renderNotice(notice: string): string {
  return `<recall-stopped>${notice.replaceAll('\n', ' ')}</recall-stopped>\n`;
}

/**
 * The exact bytes that go into the context for one turn, wrapped in a system-reminder. Depends on
 * the stored injection alone (no clock, no disk), so rendering the same conversation a day later
 * gives the same bytes. An injection with nothing in it renders as the empty string. Pure.
 */
export function renderInjection(injection: Injection): string {
  if (injection.memories.length === 0 && injection.notice === undefined) return '';
  let out = INJECTION_OPEN;
  out += `${RECALLED_INTRO}\n`;
  for (const m of injection.memories) out += renderMemorySection(m);
  if (injection.notice !== undefined) out += renderNotice(injection.notice);
  return out + INJECTION_CLOSE;
}
