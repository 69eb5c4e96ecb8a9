/**
 * Texts the hooks add on their own. The system prompt itself (guidance, notes, index) is
 * assembled by the runtime, once for every door (`src/runtime/prompts.ts`).
 */
export function contextCutNote(omittedChars: number, hint: string): string {
  return `\n[engram: ${omittedChars} more characters not shown to stay within the hook limit${hint ? `; ${hint}` : ''}]`;
}
