/**
 * What an MCP client's model reads about engram's tools. Each description leads with what the tool
 * does, then when to use it, then the rules it enforces, so a model can act without trial and error.
 */
import { MEMORY_TYPES } from '../memdir/types.js';

export const MCP_SERVER_INSTRUCTIONS = `engram keeps typed markdown memories for this project: who the user is, how they want work done, project facts the code cannot show, and pointers to outside resources.
Call memory_recall with the user's request before starting work that earlier sessions may have shaped; it may return nothing, which is a normal answer.
Save with memory_save only what cannot be recovered from the code, git history or instruction files. When a memory turns out wrong, revoke it with memory_revoke instead of saving a contradiction beside it.
A recalled memory says what was true when it was written: verify file paths, functions and flags before acting on them.`;

export const TOOL_DESCRIPTIONS = {
  memory_recall: `Find the memories relevant to a request and return them with their headers (age, path).
Use before work that earlier sessions may have shaped. Returns zero memories when nothing is relevant; that is a normal answer, not an error.
Memories older than a day may be outdated: verify what they name before acting on it.`,
  memory_save: `Save one memory: writes its markdown file, then its line in the MEMORY.md index.
Types: ${MEMORY_TYPES.join(', ')}. The description is one specific line; recall decides from it alone.
feedback and project memories must include a **Why:** line (the reason) and should include **How to apply:**.
Do not save code structure, git history, fix recipes or anything in instruction files, even when asked. Saving under an existing name updates that memory.`,
  memory_list: `List the memories: type, file, last change and description, newest first. Revoked memories are left out unless asked for.`,
  memory_read: `Read one memory file in full, frontmatter included.`,
  memory_revoke: `Revoke a memory that turned out wrong: it keeps its file, marked revoked with your reason (and its replacement, if any), loses its index line and is never recalled again.
Prefer this over deleting or contradicting it, so the mistake is not learned again.`,
  memory_audit: `Check the memory directory: memories missing from the index, index lines pointing at nothing, memories recall cannot use (no description, unknown type), an index over its size caps, and leftovers of interrupted writes.`,
} as const;

export const NOTHING_RECALLED = 'No memory is relevant to this request.';

/**
 * What a model reads when it leaves out a field the SDK validates before the tool runs. Phrased
 * like the write gate's refusals, so a missing field and an empty one get the same guidance.
 */
export const MISSING_INPUT = {
  type: `Not saved. A memory needs a type: one of ${MEMORY_TYPES.slice(0, -1).join(', ')} or ${MEMORY_TYPES.at(-1)}.`,
  name: 'Not saved. A memory needs a name (a short, specific title).',
  description:
    'Not saved. A memory needs a description: one specific line that says what it is about; recall decides from this line alone.',
  body: 'Not saved. A memory needs a body: the fact or rule first, then **Why:** and **How to apply:**.',
  query: "Nothing recalled. Pass the user's request as query.",
  file: 'Pass the memory file (as memory_list shows it) or the memory’s name as file.',
  reason: 'Not revoked. A revocation needs a reason: one line saying why the memory is wrong.',
} as const;
