import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MemoryLayer, MemoryLayerName } from '../config/memory-chain.js';
import { buildInjection, prepareInjectedMemory } from '../inject/build.js';
import { DEFAULT_INJECTION_LIMITS, type InjectionLimits } from '../inject/constants.js';
import { type InjectionHistory, injectionHistory } from '../inject/history.js';
import { budgetExhaustedNotice, truncationNote } from '../inject/prompts.js';
import { type InjectedMemory, type Injection, renderInjection } from '../inject/render.js';
import type { LanguageModel, Message } from '../llm/types.js';
import { memoryAgeDays } from '../memdir/freshness.js';
import { uninjectableText } from '../memdir/injectable.js';
import { readMemory } from '../memdir/memory-file.js';
import type { MemoryHeader, MemoryTypeOrUnknown } from '../memdir/types.js';
import { type Clock, type LegacyNow, resolveClock } from '../util/clock.js';
import { EngramError, isEngramError } from '../util/errors.js';
import { yieldToLoop } from '../util/yield-to-loop.js';
import { type CandidateSet, loadCandidates } from './candidates.js';
import type { DecayConstants } from './decay.js';
import { lastRecalledAt, readLastRecalled } from './last-recalled.js';
import {
  appendRecallMetrics,
  DEFAULT_STALE_AFTER_DAYS,
  emptyRecallShape,
  type RecallShape,
  type RecallSkip,
} from './metrics.js';
import { MAX_RECALLED } from './offline-ranker.js';
import { RECALL_QUERY_EDGE_CHARS, recallQuery } from './query-text.js';
import { successfulToolsSinceLastTurn } from './recent-tools.js';
import { selectWithModel } from './selector.js';
import { isSingleWordPrompt } from './single-word.js';
import { type MemoryVerdict, type MemoryVerifier, verdictsWithin } from './verification.js';

export interface RecallOptions {
  /** The memory directory. */
  dir: string;
  /**
   * The memory chain to draw on, closest layer first (see `resolveMemoryChain`); default: `dir`
   * alone. When given, its first layer should be `dir`; a file name found in two layers is the
   * earlier layer's.
   */
  layers?: readonly MemoryLayer[];
  /** Per-type decay constants for the offline ranker (default DEFAULT_DECAY; see decay.ts). */
  decay?: DecayConstants;
  /** When each file was last recalled; default: read from the tail of `metricsLog`. */
  lastRecalled?: ReadonlyMap<string, number>;
  /** The user's message for this turn. */
  query: string;
  /** The conversation so far: surfaced memories, session bytes and tools in use come from it. */
  messages?: readonly Message[];
  /** Extra files (relative or absolute) to treat as already surfaced, e.g. from a CLI flag. */
  alreadySurfaced?: Iterable<string>;
  /** Tools that succeeded since the last turn; derived from `messages` when omitted. */
  recentTools?: readonly string[];
  /** The LLM selector; without one the offline ranker decides. */
  model?: LanguageModel;
  /** The time headers are computed for (default: the system clock). */
  clock?: Clock;
  /** @deprecated pass `clock` (`fixedClock(t)` for one instant). */
  now?: LegacyNow;
  signal?: AbortSignal;
  selectorTimeoutMs?: number;
  limits?: Partial<InjectionLimits>;
  /** Candidates a selector sees (default 200). */
  candidateCap?: number;
  staleAfterDays?: number;
  /** Append this recall's shape to this JSONL file. */
  metricsLog?: string;
  /**
   * The recall log of a further layer, by layer name (the runtime names the user layer's): a
   * recall that injects a memory of that layer appends its shape there too, and that layer's
   * memories take their last-recalled times from it as well. A user memory is recalled in many
   * projects, some with no memory folder of their own (hence no project log).
   */
  layerLogs?: Readonly<Partial<Record<MemoryLayerName, string>>>;
  /**
   * Checks the selected memories' claims against the project (see the drift layer). Its verdict
   * enters a header only when ready within the verifier's `waitMs`; otherwise the header is as
   * without it.
   */
  verifier?: MemoryVerifier;
  /**
   * Time for scanning and ranking, in ms. When it runs out the work stops and recall goes on with
   * what is ready (memories whose headers were checked and ranked in time), instead of finishing
   * late or discarding everything; `complete` is then false and a note says so.
   */
  budgetMs?: number;
  /**
   * Monotonic milliseconds the budget is measured with (default performance.now; tests). Not
   * `clock`: that one says what time it is for freshness and may stand still.
   */
  budgetClock?: () => number;
  /** Use the header cache file in the memory directory (default true; false: in memory only). */
  persistedCache?: boolean;
}

export interface RecalledMemory {
  file: string;
  path: string;
  /** The chain layer it came from ('project', 'user', …). */
  layer: string;
  type: MemoryTypeOrUnknown;
  description: string | null;
  /** The frozen header, as injected. */
  header: string;
  /** Bytes of the memory's text that went in: the whole file, or the kept prefix when truncated. */
  bytes: number;
  /** Bytes this memory adds to the injection and the session budget (header, markers, note too). */
  sectionBytes: number;
  truncated: boolean;
  ageDays: number;
  stale: boolean;
  /** What claim verification found, when it was ready at selection time; null otherwise. */
  claims: { total: number; checked: number; failed: number } | null;
  /** True when the project contradicts at least one of the memory's claims. */
  contradicted: boolean;
}

export interface RecallResult {
  /** The memories injected this turn, in order. */
  selected: RecalledMemory[];
  /** Store this with the conversation; render it with renderInjection, never recompute it. */
  injection: Injection;
  /** The exact bytes to add to the context ('' when there is nothing to add). */
  text: string;
  shape: RecallShape;
  /** Human-readable remarks: fallback used, directory prefiltered, budget spent, log failures. */
  notes: string[];
  /** False when `budgetMs` ran out before every memory was looked at and ranked. */
  complete: boolean;
}

interface Run {
  started: number;
  nowMs: number;
  limits: InjectionLimits;
  staleAfterDays: number;
  history: InjectionHistory;
  shape: RecallShape;
  notes: string[];
  complete: boolean;
}

type Outcome = Omit<RecallResult, 'shape' | 'notes' | 'complete'>;

/**
 * One turn of recall: which memories matter for this message, and the exact bytes to inject.
 * Zero memories is a normal answer. Never throws for a model failure (it falls back to the
 * offline ranker and says so); throws EngramError('aborted') when `signal` aborts it.
 */
export async function recall(given: RecallOptions): Promise<RecallResult> {
  if (typeof given?.query !== 'string')
    throw new EngramError('invalid_input', "recall needs a `query`: the user's message, a string");
  const query = recallQuery(given.query);
  const options = query === given.query ? given : { ...given, query };
  const run = beginRun(options);
  if (query !== given.query)
    run.notes.push(
      `the prompt is ${given.query.length} characters long: recall read its first and last ${RECALL_QUERY_EDGE_CHARS}`,
    );
  const outcome = earlyOutcome(options, run) ?? (await selectAndInject(options, run));
  run.shape.durationMs = Math.round((performance.now() - run.started) * 1000) / 1000;
  run.shape.timeSpentMs = run.shape.durationMs;
  for (const log of logsFor(options, run.shape)) {
    await appendRecallMetrics(log, run.shape).catch((error: unknown) => {
      run.notes.push(`could not append recall metrics: ${(error as Error).message}`);
    });
  }
  return { ...outcome, shape: run.shape, notes: run.notes, complete: run.complete };
}

function beginRun(options: RecallOptions): Run {
  const started = performance.now();
  options.verifier?.prepare?.();
  let nowMs: number;
  try {
    nowMs = resolveClock(options).now();
  } catch {
    nowMs = Number.NaN;
  }
  if (Number.isNaN(nowMs)) throw new EngramError('invalid_input', 'recall needs a valid `now`');
  const limits: InjectionLimits = { ...DEFAULT_INJECTION_LIMITS, ...options.limits };
  const staleAfterDays = options.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS;
  const history = injectionHistory(options.messages ?? []);
  const shape = emptyRecallShape({
    nowMs,
    sessionBudgetBytes: limits.maxSessionBytes,
    staleAfterDays,
    sessionBytes: history.sessionBytes,
  });
  return { started, nowMs, limits, staleAfterDays, history, shape, notes: [], complete: true };
}

/** Cheap checks before any I/O or model call; undefined when recall should run. */
function earlyOutcome(options: RecallOptions, run: Run): Outcome | undefined {
  const skip = (reason: RecallSkip, injection: Injection = { memories: [] }): Outcome => {
    run.shape.skipped = reason;
    return { selected: [], injection, text: renderInjection(injection) };
  };
  if (isSingleWordPrompt(options.query)) return skip('single_word');
  if (run.history.budgetNoticeShown) {
    run.shape.budgetExhausted = true;
    return skip('session_budget_exhausted'); // said once already: stay silent
  }
  if (run.history.sessionBytes >= run.limits.maxSessionBytes) {
    run.shape.budgetExhausted = true;
    run.notes.push(
      'the session injection budget is spent; recall is off for the rest of the session',
    );
    const notice = budgetExhaustedNotice(run.limits.maxSessionBytes);
    return skip('session_budget_exhausted', { memories: [], notice });
  }
  return undefined;
}

async function selectAndInject(options: RecallOptions, run: Run): Promise<Outcome> {
  const { shape, notes, history, limits, nowMs } = run;
  const surfaced = new Set([...history.surfacedPaths, ...history.surfacedFiles]);
  // "./a.md", "a.md" and "/abs/dir/a.md" name the same memory: compare absolute paths too.
  for (const s of options.alreadySurfaced ?? []) surfaced.add(s).add(resolve(options.dir, s));
  const set = await loadCandidates(options.layers ?? options.dir, {
    query: options.query,
    nowMs,
    ...budgetChecks(options),
    ...(options.persistedCache === false ? { persistedCache: false } : {}),
    isSurfaced: (m) =>
      surfaced.size > 0 &&
      (surfaced.has(m.file) || surfaced.has(m.path) || surfaced.has(resolve(options.dir, m.file))),
    ...(options.candidateCap !== undefined ? { cap: options.candidateCap } : {}),
  });
  shape.total = set.total;
  shape.candidates = set.candidates.length;
  shape.prefiltered = set.prefiltered;
  shape.surfacedExcluded = set.surfacedExcluded;
  if (!set.complete) {
    run.complete = false;
    notes.push(
      `the ${options.budgetMs} ms budget ran out while scanning and ranking; recall used the memories that were ready`,
    );
  }
  if (set.prefiltered) {
    notes.push(
      `the directory holds ${set.total} memories; the offline ranker chose the ${set.candidates.length} most related as candidates`,
    );
  }
  const chosen = await choose(options, set, nowMs, shape, notes);
  throwIfAborted(options.signal);
  const byFile = new Map(set.candidates.map((m) => [m.file, m]));
  const headers = chosen.map((f) => byFile.get(f)!).slice(0, limits.maxPerTurn);
  shape.selected = headers.length;
  const dirOf = (h: MemoryHeader) => layerDir(options, h);
  const prepared = await readSelected(
    dirOf,
    headers,
    nowMs,
    limits,
    options.verifier,
    set.watchEpochs,
  );
  const built = buildInjection(
    prepared.map((p) => p.memory),
    { sessionBytes: history.sessionBytes, budgetNoticeShown: false, limits },
  );
  const selected = built.injected.map(({ memory, bytes }, i) =>
    describeSelected(prepared[i]!, memory, bytes, run, options.layers?.[0]?.layer),
  );
  shape.injected = selected.length;
  shape.injectedBytes = built.injectedBytes;
  shape.sessionCumulativeBytes = built.sessionBytesAfter;
  shape.budgetExhausted = built.exhausted;
  shape.droppedByBudget = built.droppedByBudget.length;
  shape.staleSelected = selected.filter((m) => m.stale).length;
  shape.files = selected.map((m) => m.file);
  shape.layers = selected.map((m) => m.layer);
  shape.layerDirs = Object.fromEntries(
    selected.map((m, i) => [m.layer, dirOf(prepared[i]!.header)]),
  );
  shape.verifiedSelected = selected.filter((m) => m.claims !== null).length;
  shape.contradictedSelected = selected.filter((m) => m.contradicted).length;
  shape.claimStaleHitRatio = selected.length ? shape.contradictedSelected / selected.length : null;
  if (built.exhausted) {
    notes.push(
      `the session injection budget (${limits.maxSessionBytes} bytes) is spent; recall stops for the rest of the session`,
    );
  }
  return { selected, injection: built.injection, text: built.text };
}

function describeSelected(
  {
    header,
    textBytes,
    verdict,
  }: { header: MemoryHeader; textBytes: number; verdict: MemoryVerdict | undefined },
  memory: InjectedMemory,
  sectionBytes: number,
  run: Run,
  closestLayer = 'project',
): RecalledMemory {
  const ageDays = memoryAgeDays(header.mtimeMs, run.nowMs);
  return {
    file: memory.file,
    path: memory.path,
    // Files under `team/` of the closest directory are the synced team layer (src/team). Only
    // further layers' memories are tagged: the closest is named by the chain (an agent's turn:
    // `agent:<name>/local`, not the main chain's `project`).
    layer: header.layer ?? (header.file.startsWith('team/') ? 'team' : closestLayer),
    type: header.type,
    description: header.description ?? null,
    header: memory.header,
    bytes: textBytes,
    sectionBytes,
    truncated: memory.truncated,
    ageDays,
    stale: ageDays > run.staleAfterDays,
    claims: verdict
      ? { total: verdict.total, checked: verdict.checked, failed: verdict.failed }
      : null,
    contradicted: (verdict?.failed ?? 0) > 0,
  };
}

/** The logs a recall's shape goes to: its own, and each further layer's whose memory it injected. */
function logsFor(options: RecallOptions, shape: RecallShape): string[] {
  const logs = options.metricsLog ? [options.metricsLog] : [];
  for (const [layer, log] of Object.entries(options.layerLogs ?? {})) {
    if (log && shape.layers?.includes(layer) && !logs.includes(log)) logs.push(log);
  }
  return logs;
}

/**
 * When each candidate was last recalled, file → time as the ranker takes it (file names are unique
 * among candidates: the closer layer wins a clash). A memory's time comes from its own layer's log
 * only (a further layer's in `layerLogs`, else the recall's own), and only from lines about the
 * memory of that layer's directory: the user layer's log also names same-named project memories of
 * other repositories, and one log may serve several layers.
 */
async function lastRecalledFor(
  options: RecallOptions,
  candidates: readonly MemoryHeader[],
): Promise<ReadonlyMap<string, number> | undefined> {
  const layerLogs: Readonly<Record<string, string | undefined>> = options.layerLogs ?? {};
  const logOf = (c: MemoryHeader) =>
    (c.layer !== undefined ? layerLogs[c.layer] : undefined) ?? options.metricsLog;
  const logged = candidates.map(logOf);
  const logs = [...new Set(logged)].filter((l): l is string => l !== undefined);
  if (logs.length === 0) return undefined; // no log: no times (a host that keeps none)
  const read = await Promise.all(logs.map((l) => readLastRecalled(l).catch(() => undefined)));
  const byLog = new Map(logs.map((l, i) => [l, read[i]]));
  const times = new Map<string, number>();
  for (const [i, c] of candidates.entries()) {
    const log = logged[i];
    const logTimes = log === undefined ? undefined : byLog.get(log);
    const at = logTimes && lastRecalledAt(logTimes, layerDir(options, c), c.file);
    if (at !== undefined) times.set(c.file, at);
  }
  return times;
}

/** The directory of a candidate's layer (a memory without a layer is the recall's own `dir`). */
function layerDir(options: RecallOptions, header: MemoryHeader): string {
  return options.layers?.find((l) => l.layer === header.layer)?.dir ?? options.dir;
}

async function choose(
  options: RecallOptions,
  set: CandidateSet,
  nowMs: number,
  shape: RecallShape,
  notes: string[],
): Promise<string[]> {
  const { candidates } = set;
  const lastRecalled = options.lastRecalled ?? (await lastRecalledFor(options, candidates));
  // This ranking and the prefilter's (loadCandidates) each score every memory: a turn of the
  // host's loop between them, so the two (and the reads after) never add up to one stall.
  await yieldToLoop();
  const offline = () => {
    const allowed = new Set(candidates.map((c) => c.file));
    // The cut-off judges only the memories that may still be chosen: one already in the
    // conversation must not set the bar the others are measured against.
    return set.ranker
      .rank(options.query, {
        nowMs,
        limit: MAX_RECALLED,
        only: allowed,
        ...(options.decay ? { decay: options.decay } : {}),
        ...(lastRecalled ? { lastRecalled } : {}),
      })
      .map((r) => r.file);
  };
  const model = options.model;
  if (!model) return offline();
  shape.selector = 'model';
  shape.model = model.modelId;
  try {
    return await selectWithModel(model, {
      query: options.query,
      candidates,
      toolsInUse: options.recentTools ?? successfulToolsSinceLastTurn(options.messages ?? []),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.selectorTimeoutMs !== undefined ? { timeoutMs: options.selectorTimeoutMs } : {}),
    });
  } catch (error) {
    throwIfAborted(options.signal);
    const reason = error instanceof Error ? error.message : String(error);
    shape.fallback = true;
    shape.fallbackUsed = true;
    shape.fallbackReason = reason;
    notes.push(`the model selector failed (${reason}); the offline ranker chose instead`);
    return offline();
  } finally {
    // A compatible server with no model named tells its model's id on the first call.
    shape.model = model.modelId;
  }
}

/**
 * The chosen memories' text, as read through the confinement: undefined when revoked, holding
 * bytes that are never injected, or gone since the scan. Kept for a directory under a quiet watch
 * (keyed by its epoch): while nothing in the tree changed, the same read gives the same answer.
 */
async function readChosen(
  dir: string,
  file: string,
  epoch: number | undefined,
): Promise<string | undefined> {
  const key = `${dir}\0${file}`;
  const kept = chosenTexts.get(key);
  if (kept && epoch !== undefined && kept.epoch === epoch) {
    chosenTexts.delete(key); // least recently used goes first
    chosenTexts.set(key, kept);
    return kept.text;
  }
  let text: string | undefined;
  try {
    const doc = await readMemory(dir, file);
    // Revoked since the scan; or NUL or non-UTF-8 bytes past the head the scan saw: never injected.
    const out = doc.header.status === 'revoked' || uninjectableText(doc.content) !== undefined;
    text = out ? undefined : doc.content;
  } catch (error) {
    if (isEngramError(error, 'not_found')) return undefined; // removed since the scan
    // Refused by the confinement since the scan (made a hard link, swapped for a link): one such
    // file is not injected and does not take the whole recall down.
    if (isEngramError(error, 'refused')) return undefined;
    throw error;
  }
  if (epoch !== undefined && (text?.length ?? 0) <= CHOSEN_TEXT_MAX_CHARS) {
    chosenTexts.delete(key);
    chosenTexts.set(key, { epoch, text });
    while (chosenTexts.size > CHOSEN_TEXTS_KEPT)
      chosenTexts.delete(chosenTexts.keys().next().value!);
  }
  return text;
}

const chosenTexts = new Map<string, { epoch: number; text: string | undefined }>();
/** A few turns' worth of chosen memories; long ones are read each time (injection cuts them anyway). */
const CHOSEN_TEXTS_KEPT = 64;
const CHOSEN_TEXT_MAX_CHARS = 256 * 1024;

async function readSelected(
  dirOf: (header: MemoryHeader) => string,
  headers: readonly MemoryHeader[],
  nowMs: number,
  limits: InjectionLimits,
  verifier: MemoryVerifier | undefined,
  watchEpochs: ReadonlyMap<string, number>,
) {
  const read = await Promise.all(
    headers.map(async (header) => {
      const dir = dirOf(header);
      const content = await readChosen(dir, header.file, watchEpochs.get(dir));
      return content === undefined ? undefined : { header, content };
    }),
  );
  const docs = read.filter((r) => r !== undefined);
  const verdicts = verifier
    ? await verdictsWithin(
        verifier,
        docs.map((d) => ({ file: d.header.file, content: d.content })),
      )
    : new Map<string, MemoryVerdict>();
  return docs.map(({ header, content }) => {
    const verdict = verdicts.get(header.file);
    const memory = prepareInjectedMemory(
      {
        file: header.file,
        path: header.path,
        mtimeMs: header.mtimeMs,
        content,
        ...(verdict?.note ? { verificationNote: verdict.note } : {}),
      },
      nowMs,
      limits,
    );
    // The note is appended verbatim after the kept prefix, so the prefix is what remains.
    const textBytes = memory.truncated
      ? Buffer.byteLength(memory.content) - Buffer.byteLength(truncationNote(header.path, limits))
      : Buffer.byteLength(content);
    return { header, memory, textBytes, verdict };
  });
}

/** Share of the budget the scan may use; ranking what it found gets the rest. */
const SCAN_SHARE = 0.6;

/** Deadlines for the scan and for ranking, from `budgetMs` (none without one). */
function budgetChecks(options: RecallOptions) {
  if (options.budgetMs === undefined) return {};
  const clock = options.budgetClock ?? (() => performance.now());
  const start = clock();
  const scanEnd = start + options.budgetMs * SCAN_SHARE;
  const end = start + options.budgetMs;
  return { scanExpired: () => clock() >= scanEnd, expired: () => clock() >= end };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngramError('aborted', 'recall was cancelled');
}
