/** L0: instruction files (AGENTS.md, CLAUDE.md, rules) discovered, expanded and assembled. */
export {
  clearInstructionsCache,
  invalidateInstructions,
  type LoadInstructionsShorthand,
  loadInstructions,
} from './cache.js';
export {
  ALLOW_EXTERNAL_INCLUDES_KEY,
  DEFAULT_INSTRUCTION_FILES,
  INSTRUCTION_EXCLUDES_KEY,
  INSTRUCTION_FILES_KEY,
  LARGE_FILE_CHARS,
  MAX_FILE_BYTES,
  MAX_INCLUDE_DEPTH,
  RULES_DIR_ENTRY,
  TEXT_FILE_EXTENSIONS,
} from './constants.js';
export { isTextFilePath, resolveIncludePath } from './include-path.js';
export {
  DEFAULT_INSTRUCTION_SETTINGS,
  type InstructionSettings,
  resolveInstructionSettings,
} from './instruction-settings.js';
export { ancestorsFromRoot, readInstructions } from './load-instructions.js';
export { extractIncludeReferences, stripHtmlComments } from './markdown.js';
export { parseGlobs, processInstructionText } from './process-text.js';
export {
  describeInstructionFile,
  INSTRUCTIONS_HEADING,
  INSTRUCTIONS_PREAMBLE,
  renderInstructionsPrompt,
} from './prompts.js';
export { rulesFor } from './rules-for.js';
export {
  INSTRUCTION_TYPES,
  type InstructionReport,
  type InstructionReportKind,
  type InstructionsLoadReason,
  type InstructionsResult,
  type InstructionType,
  type LoadedInstructionFile,
  type LoadInstructionsOptions,
} from './types.js';
