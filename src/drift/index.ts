export { checkClaims } from './check-claims.js';

export {
  CLAIM_CACHE_FILE,
  type ClaimCache,
  type ClaimCacheEntry,
  cachedChecks,
  claimCachePath,
  memoryIdentity,
  readClaimCache,
  writeClaimCache,
} from './claim-cache.js';

export {
  type Claim,
  type ClaimCheck,
  type ClaimStatus,
  type FailureFacts,
  type IdentifierRole,
  isLocationClaim,
  type MemoryVerification,
  summarizeChecks,
} from './claims.js';

export {
  type DoctorOptions,
  type DoctorReport,
  type DoctorSummary,
  diagnoseMemoryDir,
} from './doctor.js';

export {
  feedbackPolarity,
  findRelativeDates,
  hasWhy,
  NEAR_DUPLICATE_SIMILARITY,
  nearDuplicateDescriptions,
  POLARITY_MAX_RATIO,
  POLARITY_MIN_CORRECTIONS,
  type Polarity,
  polarityIsLopsided,
  type RelativeDate,
} from './doctor-checks.js';

export {
  auditFinding,
  type DoctorFinding,
  type FindingSeverity,
  formatFinding,
  sortFindings,
} from './doctor-findings.js';

export { DOCTOR_BACKUP_DIR, type DoctorRepair, repairMemoryDir } from './doctor-fix.js';

export type { PreciseMemory } from './doctor-report.js';
export { extractClaims, identifierInSpan, MAX_CLAIMS_PER_MEMORY } from './extract-claims.js';

export {
  gitProbe,
  type ProbeOptions,
  type ProjectProbe,
  projectProbe,
  quickGitState,
  WALK_MAX_FILE_BYTES,
  WALK_MAX_FILES,
  WALK_STATE_TTL_MS,
  walkProbe,
} from './project-probe.js';

export { failureText, verificationNote } from './prompts.js';
export {
  CLAIM_REFRESH_MARKER,
  claimRefreshDue,
  markClaimRefresh,
  quickProjectState,
} from './refresh-marker.js';

export {
  type ClaimVerifier,
  type ClaimVerifierOptions,
  createClaimVerifier,
  DEFAULT_VERIFY_BUDGET_MS,
  verdictFor,
} from './verifier.js';
