/**
 * Every model-facing text of the model layer: the built-in file tools' descriptions and the
 * `engram models check` probe. Written in our own words; structure is tested in prompts.test.ts.
 */

export const FILE_TOOL_DESCRIPTIONS = {
  read:
    'Read a text file. Returns its lines numbered from 1 ("   12\\tline text"). ' +
    'Use offset (first line, 1-based) and limit (line count) to page through long files. ' +
    'Paths are relative to the memory root unless absolute.',
  write:
    'Create a file or replace its whole content. Parent folders are created. ' +
    'Read an existing file first so nothing in it is lost.',
  edit:
    'Replace one exact passage of a file. old_string must occur exactly once: include enough ' +
    'surrounding text to make it unique. Copy it from read output without the line numbers.',
  list: 'List the files under a folder (default: the memory root), one relative path a line.',
  grep:
    'Search files for a regular expression (JavaScript syntax). Returns "path:line: text" for ' +
    'each matching line, under path (default: the memory root).',
} as const;

/** `engram models check`: the smallest request that proves the model answers. */
export const MODEL_CHECK_PROMPT = 'Reply with the single word OK.';
