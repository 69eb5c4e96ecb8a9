/**
 * The memory selector's prompt, in our own words. Three rules carry the design:
 * precision over recall (an unrelated memory in context is obeyed as if it were a constraint),
 * zero is a normal answer (never pad to a top-k), and tools that are working need no manual while
 * their pitfalls matter most exactly then.
 */
import { neutralizeTags } from '../confine/index.js';
import { MAX_RECALLED } from './offline-ranker.js';

/** The selector message's own sections. */
const SELECTOR_TAGS = ['message', 'memories', 'tools_in_use'];

export const SELECT_TOOL_NAME = 'select_memories';

export const SELECTOR_HEADINGS = {
  task: '# Choose the memories this message needs',
  input: '## Read what you are given',
  rules: '## Pick only what will clearly help',
  tools: '## Skip manuals for tools that already work',
  answer: '## Answer with file names only',
} as const;

export const SELECTOR_SYSTEM_PROMPT = [
  `${SELECTOR_HEADINGS.task}
An AI agent is about to work on the user's message below. Before it starts, you decide which of its saved memories it should read. Each memory is a short markdown file; you only see its one-line description.`,
  `${SELECTOR_HEADINGS.input}
- The user's message, inside <message>.
- The memories, inside <memories>, one per line: \`- [type] file (saved at): description\`.
- Sometimes, inside <tools_in_use>, tools the agent has been calling successfully in this task.`,
  `${SELECTOR_HEADINGS.rules}
- Choose a memory only when its description makes you confident it matters for this message. If you hesitate, leave it out: a memory that does not apply still reads like an instruction and pulls the agent off course, while a missed one costs little.
- Choose at most ${MAX_RECALLED}. Choosing none is a normal, correct answer; never fill the list to reach a number.
- Judge by topic, not by shared words: a memory about the same file or tool but a different concern does not apply.`,
  `${SELECTOR_HEADINGS.tools}
- When <tools_in_use> is present, do not choose memories that are only usage notes or reference documentation for those tools: the agent is already using them correctly.
- Still choose memories that warn about those tools: pitfalls, known bugs, things that broke before. Active use is when those warnings pay off.`,
  `${SELECTOR_HEADINGS.answer}
Call the \`${SELECT_TOOL_NAME}\` tool with \`files\` set to the chosen file names, spelled exactly as in the list; use an empty list when nothing applies. If you cannot call tools, reply with nothing but a JSON array of file names, such as ["a.md"] or [].`,
].join('\n\n');

export interface SelectorInput {
  query: string;
  /** Manifest lines, `- [type] file (ISO time): description`. */
  manifest: string;
  /** Tools that succeeded (and never failed) since the previous user turn. */
  toolsInUse?: readonly string[];
}

/** The user message the selector reads: the query, the manifest, and tools in use when known. */
export function selectorUserMessage(input: SelectorInput): string {
  // Memory descriptions (and the texts beside them) cannot close or imitate these sections.
  const inside = (text: string) => neutralizeTags(text, SELECTOR_TAGS);
  const parts = [
    `<message>\n${inside(input.query)}\n</message>`,
    `<memories>\n${inside(input.manifest)}\n</memories>`,
  ];
  if (input.toolsInUse && input.toolsInUse.length > 0) {
    parts.push(`<tools_in_use>\n${inside(input.toolsInUse.join(', '))}\n</tools_in_use>`);
  }
  return parts.join('\n\n');
}

/** The structured answer: a JSON list of file names, each one from the manifest. */
export function selectToolDefinition(files: readonly string[]) {
  return {
    name: SELECT_TOOL_NAME,
    description: 'Report the memory files the agent should read for this message (may be empty).',
    input_schema: {
      type: 'object',
      properties: {
        files: {
          type: 'array',
          items: files.length > 0 ? { type: 'string', enum: [...files] } : { type: 'string' },
          maxItems: MAX_RECALLED,
          description: 'File names exactly as listed; [] when no memory clearly helps.',
        },
      },
      required: ['files'],
      additionalProperties: false,
    },
  };
}
