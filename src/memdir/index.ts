export {
  type AgentPreparation,
  agentWriteDir,
  checkAgentSnapshot,
  ensureLocalAgentIgnored,
  knownAgentNames,
  prepareAgentMemory,
  SNAPSHOT_META_FILE,
  SNAPSHOT_RECORD_FILE,
  type SnapshotAction,
  type SnapshotStatus,
  snapshotMovedOn,
  syncAgentSnapshot,
} from './agent-snapshot.js';
export {
  type AuditOptions,
  type AuditProblem,
  type AuditProblemKind,
  type AuditReport,
  auditFrom,
  auditMemoryDir,
} from './audit.js';
export {
  FRONTMATTER_MAX_LINES,
  INDEX_FILE,
  INDEX_LINE_MAX_CHARS,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  MAX_SCANNED_FILES,
} from './constants.js';
export { MEMORY_LOCK, memoryLockPath, withMemoryLock } from './dir-lock.js';
export {
  memoryAge,
  memoryAgeDays,
  memoryAgeText,
  memoryFreshnessText,
  stalenessWarning,
} from './freshness.js';
export {
  type ParsedFrontmatter,
  parseFrontmatter,
  renderFrontmatter,
  stringField,
} from './frontmatter.js';
export { headerFromHead } from './header.js';
export {
  type ImportOptions,
  type ImportResult,
  importedIndexLine,
  importMemoryDir,
} from './import-memories.js';

export { crossCheckIndex, type IndexCount, type IndexCrossCheck } from './index-crosscheck.js';

export {
  DEFAULT_INDEX_LIMITS,
  type IndexEntry,
  type IndexLimits,
  type LoadedIndex,
  loadIndex,
  parseIndexEntries,
  readIndexRaw,
  removeIndexLine,
  renderIndexLine,
  type TruncatedIndex,
  truncateIndex,
  updateIndex,
  upsertIndexLine,
} from './index-file.js';

export { formatManifest, formatManifestLine } from './manifest.js';

export {
  checkExistingMemoryName,
  checkMemoryFileName,
  checkMemoryInput,
  type MemoryCheck,
  type MemoryDocument,
  type MemoryInput,
  memoryFileName,
  type RevokeOptions,
  readMemory,
  removeMemory,
  renderMemory,
  resolveMemoryRef,
  revokeMemory,
  type SaveResult,
  saveMemory,
} from './memory-file.js';

export {
  canWriteWithoutPrompt,
  defaultMemoryDir,
  explicitMemoryDir,
  MEMORY_DIR_ENV,
  MEMORY_DIRECTORY_KEY,
  type MemoryDirResolution,
  type MemoryDirSource,
  type ResolveMemoryDirOptions,
  resolveMemoryDir,
} from './paths.js';

export { GUIDANCE_HEADINGS, type MemoryGuidanceOptions, memoryGuidance } from './prompts.js';

export { type RebuiltIndex, rebuildIndexText } from './rebuild-index.js';

export {
  headerFromText,
  isMemoryFileName,
  listMemoryFiles,
  readHead,
  type ScanOptions,
  scanMemories,
} from './scan.js';

export {
  MEMORY_TYPES,
  type MemoryHeader,
  type MemoryStatus,
  type MemoryType,
  type MemoryTypeOrUnknown,
  parseMemoryType,
  type ScanResult,
} from './types.js';

export {
  checkMemoryDirOnDisk,
  type PathCheck,
  systemLocation,
  validateMemoryPath,
} from './validate-path.js';
