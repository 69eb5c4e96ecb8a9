/**
 * One file mode from every door: memories, notes and indexes describe a person and their work, so
 * every file engram writes is private to the user, and every directory it creates too. The CLI,
 * MCP server, memory-tool handler and the forked agents' file tools all write with these.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;
