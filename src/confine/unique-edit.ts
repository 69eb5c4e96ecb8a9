/**
 * The one exact-match edit every door uses (the memory tool's `str_replace`, the forked agents'
 * `edit`, Claude Code's `Edit`/`MultiEdit`). Pure: text in, outcome out.
 */

export type UniqueEdit =
  | { ok: true; text: string /** 1-based line of the first change. */; line: number; count: number }
  | {
      ok: false;
      kind: 'empty' | 'missing' | 'ambiguous' /** 1-based start lines. */;
      lines: number[];
    };

/** 1-based line numbers where each (non-overlapping) occurrence of `needle` starts. */
export function occurrenceLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  if (needle === '') return lines;
  let from = 0;
  let line = 1;
  let counted = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at === -1) return lines;
    for (let i = counted; i < at; i++) if (text.charCodeAt(i) === 10) line++;
    counted = at;
    lines.push(line);
    from = at + needle.length;
  }
}

/**
 * Replace `oldText` by `newText` when it occurs exactly once (or every time, with `replaceAll`).
 * The replacement is literal: `$&` in `newText` stays `$&`.
 */
export function uniqueEdit(
  text: string,
  oldText: string,
  newText: string,
  options: { replaceAll?: boolean } = {},
): UniqueEdit {
  if (oldText === '') return { ok: false, kind: 'empty', lines: [] };
  const lines = occurrenceLines(text, oldText);
  if (lines.length === 0) return { ok: false, kind: 'missing', lines };
  if (lines.length > 1 && options.replaceAll !== true)
    return { ok: false, kind: 'ambiguous', lines };
  const next = options.replaceAll
    ? text.split(oldText).join(newText)
    : (() => {
        const at = text.indexOf(oldText);
        return text.slice(0, at) + newText + text.slice(at + oldText.length);
      })();
  return { ok: true, text: next, line: lines[0] ?? 1, count: lines.length };
}
