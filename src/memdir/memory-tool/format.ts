/**
 * Result texts of the memory tool. Models trained on the official `memory_20250818` tool have
 * learned its wording, so these follow the SDK's reference implementation closely. Pure.
 */

/** The official tool refuses files longer than this. */
export const MAX_FILE_LINES = 999_999;
const LINE_NUMBER_WIDTH = String(MAX_FILE_LINES).length;

/** `4.0K`, `512B`: the `du -h` style the official listing uses. */
export function formatFileSize(bytes: number): string {
  if (bytes === 0) return '0B';
  const units = ['B', 'K', 'M', 'G'];
  const i = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  const size = bytes / 1024 ** i;
  return (size % 1 === 0 ? size.toString() : size.toFixed(1)) + units[i];
}

export function numberLines(lines: readonly string[], firstNumber: number): string {
  return lines
    .map((line, i) => `${String(i + firstNumber).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`)
    .join('\n');
}

export interface ListingItem {
  /** Relative to the listed directory, directories ending in `/`. */
  path: string;
  size: number;
}

export function formatListing(
  toolPath: string,
  dirSize: number,
  items: readonly ListingItem[],
): string {
  const base = toolPath.replace(/\/+$/, '');
  const lines = [
    `${formatFileSize(dirSize)}\t${base}`,
    ...items.map((item) => `${formatFileSize(item.size)}\t${base}/${item.path}`),
  ];
  return `Here're the files and directories up to 2 levels deep in ${base}, excluding hidden items and node_modules:\n${lines.join('\n')}`;
}

/** `view_range` is 1-based and inclusive; an end of -1 reads to the end. */
export function formatFileView(
  toolPath: string,
  content: string,
  viewRange?: readonly number[],
): string {
  const lines = content.split('\n');
  let shown = lines;
  let first = 1;
  if (viewRange && viewRange.length === 2) {
    const start = Math.max(1, viewRange[0] ?? 1) - 1;
    const end = viewRange[1] === -1 ? lines.length : (viewRange[1] ?? lines.length);
    shown = lines.slice(start, end);
    first = start + 1;
  }
  return `Here's the content of ${toolPath} with line numbers:\n${numberLines(shown, first)}`;
}

/** A few lines around an edit, numbered, as the official `str_replace` result shows them. */
export function editSnippet(content: string, changedLine: number, changedLines = 1): string {
  const lines = content.split('\n');
  const start = Math.max(0, changedLine - 1 - 2);
  const end = Math.min(lines.length, changedLine - 1 + changedLines + 2);
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${numberLines(
    lines.slice(start, end),
    start + 1,
  )}`;
}
