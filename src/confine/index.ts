export {
  type Confinement,
  type ConfinementOptions,
  createConfinement,
  type EntryInfo,
  listForWalk,
  type ReadResult,
  resolveDenyContext,
  type WriteOptions,
} from './confinement.js';
export { ConfinementError, type Located, type RootSpec } from './locate.js';
export {
  appendOwnFileSync,
  ensureOwnFolderSync,
  readOwnFile,
  withOwnFolder,
} from './own-file.js';
export {
  type AccessKind,
  type DenyContext,
  hasControlCharacter,
  isInsideOrSame,
  readDenyReason,
  redactUrlCredentials,
  writeNameProblem,
} from './policy.js';
export { occurrenceLines, type UniqueEdit, uniqueEdit } from './unique-edit.js';
export {
  hasWrapperTag,
  neutralizeTags,
  neutralizeWrapperTags,
  WRAPPER_TAG_NAMES,
} from './wrapper-text.js';
