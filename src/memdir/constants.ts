/** Scan: only the newest files by mtime are considered, so a turn's cost stays bounded. */
export const MAX_SCANNED_FILES = 200;
/** Frontmatter must close within this many lines; scanning never reads whole bodies. */
export const FRONTMATTER_MAX_LINES = 30;
/** MEMORY.md is loaded into every session: cap lines AND bytes, whichever is hit first. */
export const INDEX_MAX_LINES = 200;
export const INDEX_MAX_BYTES = 25_000;
/** One index line per memory, kept short so the index stays scannable. */
export const INDEX_LINE_MAX_CHARS = 150;
export const INDEX_FILE = 'MEMORY.md';
