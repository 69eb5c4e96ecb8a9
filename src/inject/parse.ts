import { neutralizeWrapperTags } from '../confine/wrapper-text.js';
import { INJECTION_OPEN, type InjectedMemory, type Injection, unescapeAttr } from './render.js';

/** An injection found in some text, with the bytes its memory sections occupy. */
export interface ParsedInjection extends Injection {
  /** Sum of the byte lengths of the memory sections (what the session budget counts). */
  memoryBytes: number;
}

const NL = 0x0a;
const OPEN = Buffer.from(INJECTION_OPEN, 'utf8');
const CLOSE_TAG = '</recalled-memories>';
const MEMORY_OPEN_RE = /^<memory file="([^"]*)" path="([^"]*)" bytes="(\d+)"( truncated="true")?>$/;
const NOTICE_RE = /^<recall-stopped>(.*)<\/recall-stopped>$/;
const MEMORY_CLOSE = Buffer.from('</memory>\n', 'utf8');

/**
 * Every recalled-memories block in `text`, read back from its bytes. Payloads are skipped by their
 * declared length, never scanned, so memory text cannot forge markers. A block whose bytes were
 * altered stops being read at the first inconsistency (what was read before still counts). Pure.
 */
export function parseInjections(text: string): ParsedInjection[] {
  if (!text.includes(INJECTION_OPEN)) return [];
  const buf = Buffer.from(text, 'utf8');
  const found: ParsedInjection[] = [];
  let pos = buf.indexOf(OPEN);
  while (pos >= 0) {
    const { injection, end } = parseBlock(buf, pos + OPEN.length);
    found.push(injection);
    pos = buf.indexOf(OPEN, end);
  }
  return found;
}

function parseBlock(buf: Buffer, start: number): { injection: ParsedInjection; end: number } {
  const injection: ParsedInjection = { memories: [], memoryBytes: 0 };
  let pos = start;
  while (pos < buf.length) {
    const eol = buf.indexOf(NL, pos);
    const lineEnd = eol < 0 ? buf.length : eol;
    const line = buf.subarray(pos, lineEnd).toString('utf8');
    if (line === CLOSE_TAG) return { injection, end: lineEnd };
    const notice = NOTICE_RE.exec(line);
    if (notice) injection.notice = notice[1] ?? '';
    const open = MEMORY_OPEN_RE.exec(line);
    if (!open) {
      pos = lineEnd + 1; // the intro line, or text we do not know: skip it
      continue;
    }
    const next = readMemory(buf, lineEnd + 1, open);
    if (!next) break;
    injection.memories.push(next.memory);
    injection.memoryBytes += next.end - pos;
    pos = next.end;
  }
  return { injection, end: pos };
}

function readMemory(
  buf: Buffer,
  payloadStart: number,
  open: RegExpExecArray,
): { memory: InjectedMemory; end: number } | undefined {
  const bytes = Number(open[3]);
  const payloadEnd = payloadStart + bytes;
  if (!Number.isSafeInteger(bytes) || payloadEnd > buf.length) return undefined;
  const payload = buf.subarray(payloadStart, payloadEnd).toString('utf8');
  let pos = payloadEnd;
  if (!payload.endsWith('\n')) {
    if (buf[pos] !== NL) return undefined;
    pos++;
  }
  if (!buf.subarray(pos, pos + MEMORY_CLOSE.length).equals(MEMORY_CLOSE)) return undefined;
  const path = unescapeAttr(open[2] ?? '');
  const split = splitPayload(payload, path);
  if (!split) return undefined;
  const memory: InjectedMemory = {
    file: unescapeAttr(open[1] ?? ''),
    path,
    header: split.header,
    content: split.content,
    truncated: open[4] !== undefined,
  };
  return { memory, end: pos + MEMORY_CLOSE.length };
}

/** The header always ends with "<path>:" followed by a blank line (see memoryHeader). */
function splitPayload(
  payload: string,
  path: string,
): { header: string; content: string } | undefined {
  const marker = `${neutralizeWrapperTags(path)}:\n\n`;
  const at = payload.indexOf(marker);
  if (at < 0) return undefined;
  const cut = at + marker.length;
  return { header: payload.slice(0, cut - 2), content: payload.slice(cut) };
}
