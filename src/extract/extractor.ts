/**
 * Background extraction after each turn: a safety net for memories the main agent forgot to save.
 * All mutable state lives in the instance returned by `createExtractor`, so two extractors (two
 * sessions, or tests) in one process never interfere.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runForkedAgent } from '../llm/forked-agent.js';
import { formatManifest } from '../memdir/manifest.js';
import { scanMemories } from '../memdir/scan.js';
import { resolveClock } from '../util/clock.js';
import { EngramError, isEngramError } from '../util/errors.js';
import { realpathOrSelf } from '../util/realpath-or-self.js';
import {
  backoffMessage,
  decideBackoff,
  extractionConfigKey,
  type FailureRecord,
  nextFailureRecord,
} from './backoff.js';
import {
  defaultForkTools,
  forkConfinement,
  forkSandbox,
  localDate,
  snapshot,
} from './fork-setup.js';
import { savedFileName, type WritePathContext } from './memory-writes.js';
import {
  DEFAULT_EXTRACTION_EVERY_N_TURNS,
  DEFAULT_EXTRACTION_MAX_TURNS,
  decideExtraction,
  type ExtractionDecision,
  isCompletedTurn,
  startAfterCursor,
} from './policy.js';
import { buildExtractionPrompt, formatSavedNotice } from './prompts.js';
import { checkSavedFiles, savedMemoryFiles } from './saved-files.js';
import type {
  ExtractionContext,
  ExtractionRun,
  Extractor,
  ExtractorOptions,
  ExtractorState,
  TriggerResult,
} from './types.js';

/** Drain waits at most this long by default: shutdown must not hang on a slow model. */
export const DEFAULT_EXTRACTION_DRAIN_MS = 60_000;

type RunDecision = Extract<ExtractionDecision, { kind: 'run' }>;
type SkipDecision = Exclude<ExtractionDecision, RunDecision>;

/** The manifest lines of a scan, saying how many older memories it leaves out. */
function manifestOf(scan: Awaited<ReturnType<typeof scanMemories>>): string {
  return scan.dropped > 0
    ? `${formatManifest(scan.memories)}\n(${scan.dropped} older memories are not listed.)`
    : formatManifest(scan.memories);
}

/** Create an extractor for one memory directory and one conversation. */
export function createExtractor(options: ExtractorOptions): Extractor {
  const memoryDir = resolve(options.memoryDir);
  const userDir =
    options.userDir === undefined || resolve(options.userDir) === memoryDir
      ? undefined
      : resolve(options.userDir);
  const everyNTurns = options.everyNTurns ?? DEFAULT_EXTRACTION_EVERY_N_TURNS;
  const maxTurns = options.maxTurns ?? DEFAULT_EXTRACTION_MAX_TURNS;
  const hostCwd = options.cwd ?? process.cwd();
  // engram's own tools resolve relative paths in the memory directory; a host's, in its cwd.
  const tools =
    options.tools ??
    defaultForkTools(memoryDir, forkConfinement(memoryDir, hostCwd, memoryDir, userDir), userDir);
  const canUseTool = forkSandbox(memoryDir, options.tools ? hostCwd : undefined, hostCwd, userDir);

  let cursor = options.cursor;
  // The last failure: the same failure on the same messages is not repeated every turn.
  let failure: FailureRecord | undefined;
  const config = extractionConfigKey(options.model, maxTurns);
  let inProgress = false;
  let pending: ExtractionContext | undefined;
  let turnsSinceLastRun = 0;
  let aliases = [realpathOrSelf(memoryDir)].filter((p) => p !== memoryDir);
  let userAliases =
    userDir === undefined ? [] : [realpathOrSelf(userDir)].filter((p) => p !== userDir);
  const userPaths = (): Partial<WritePathContext> =>
    userDir === undefined ? {} : { userDir, userDirAliases: userAliases };
  let controller: AbortController | undefined;
  const inFlight = new Set<Promise<void>>();

  /** How main-agent paths are read: relative to the host's working directory. */
  const hostPaths = (): WritePathContext => ({
    memoryDir,
    cwd: hostCwd,
    memoryDirAliases: aliases,
    ...userPaths(),
  });
  /** How fork paths are read: engram's file tools resolve relative paths in the memory directory. */
  const forkPaths = (): WritePathContext => ({
    memoryDir,
    cwd: options.tools ? hostCwd : memoryDir,
    memoryDirAliases: aliases,
    ...userPaths(),
  });

  function decide(context: ExtractionContext, trailing: boolean): ExtractionDecision {
    const decision = decideExtraction({
      messages: context.messages,
      cursor,
      turnsSinceLastRun,
      everyNTurns,
      trailing,
      paths: hostPaths(),
    });
    turnsSinceLastRun = decision.turnsSinceLastRun;
    return decision;
  }

  function report(run: ExtractionRun): void {
    // A host callback that throws must not break the extractor's own bookkeeping.
    try {
      options.onRun?.(run);
    } catch {}
    if (run.notice === undefined) return;
    try {
      options.onSaved?.({ text: run.notice, files: run.saved, savedTo: run.savedTo });
    } catch {}
  }

  function base(trailing: boolean, newMessageCount: number): ExtractionRun {
    return {
      outcome: 'skipped',
      trailing,
      cursorBefore: cursor,
      cursorAfter: cursor,
      newMessageCount,
      saved: [],
      savedTo: [],
      turns: 0,
      toolCalls: [],
      warnings: [],
    };
  }

  function skip(
    decision: SkipDecision,
    trailing: boolean,
    context: ExtractionContext,
  ): ExtractionRun {
    const run = base(trailing, 0);
    run.reason = decision.reason;
    if (decision.reason === 'main_agent_wrote') {
      // The main agent saved with full context; move past its write instead of saving twice.
      cursor = decision.advanceTo;
      run.mainAgentWrote = decision.written;
    }
    if (decision.reason !== 'no_new_messages') {
      run.newMessageCount =
        context.messages.length - startAfterCursor(context.messages, run.cursorBefore);
    }
    run.cursorAfter = cursor;
    return run;
  }

  async function runFork(
    context: ExtractionContext,
    decision: RunDecision,
    trailing: boolean,
  ): Promise<ExtractionRun> {
    const run = base(trailing, decision.newMessageCount);
    const gate = decideBackoff(failure, context.messages, config);
    if (gate.kind === 'skip' && failure) {
      run.reason = 'backed_off';
      if (!failure.announced) run.warnings.push(backoffMessage(failure, gate.needed));
      failure = { ...failure, announced: true };
      return run;
    }
    const finished = await runForkOnce(context, decision, run);
    failure = nextFailureRecord(failure, finished, context.messages.at(-1)?.id, config);
    return finished;
  }

  async function runForkOnce(
    context: ExtractionContext,
    decision: RunDecision,
    run: ExtractionRun,
  ): Promise<ExtractionRun> {
    const abort = new AbortController();
    controller = abort;
    try {
      await mkdir(memoryDir, { recursive: true, mode: 0o700 });
      const real = await realpath(memoryDir);
      aliases = real === memoryDir ? [] : [real];
      if (userDir !== undefined) {
        // The confinement walks real folders: a first save into the user layer needs its root.
        await mkdir(userDir, { recursive: true, mode: 0o700 });
        const realUser = realpathOrSelf(userDir);
        userAliases = realUser === userDir ? [] : [realUser];
      }
      // The manifest is built only now, after every gate, so skipped turns never pay for a scan.
      const scan = await scanMemories(memoryDir);
      const userScan = userDir === undefined ? undefined : await scanMemories(userDir);
      const prompt = buildExtractionPrompt({
        newMessageCount: decision.newMessageCount,
        memoryDir,
        manifest: manifestOf(scan),
        ...(userDir === undefined || userScan === undefined
          ? {}
          : { userDir, userManifest: manifestOf(userScan) }),
        today: localDate(new Date(resolveClock(options).now())),
        memoryTool: context.tools.some((t) => t.name === 'memory'),
      });
      const result = await runForkedAgent({
        model: options.model,
        prefix: { system: context.system, tools: context.tools, messages: context.messages },
        prompt,
        tools,
        canUseTool,
        maxTurns,
        signal: abort.signal,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      });
      run.turns = result.turns;
      run.usage = result.usage;
      run.toolCalls = result.toolCalls;
      run.finalText = result.finalText;
      // Files written by a failed run stay on disk; they are reported so nothing is hidden.
      run.savedTo = savedMemoryFiles(result.toolCalls, forkPaths());
      run.saved = run.savedTo.map(savedFileName);
      if (result.status !== 'completed') {
        // At-least-once: the cursor stays, so these messages are offered again next time.
        run.outcome = 'failed';
        run.reason = result.status;
        if (result.error) run.error = result.error;
        return run;
      }
      cursor = decision.advanceTo;
      run.cursorAfter = cursor;
      const inLayer = (layer: 'project' | 'user') =>
        run.savedTo.filter((f) => f.layer === layer).map((f) => f.file);
      run.warnings = await checkSavedFiles(memoryDir, inLayer('project'));
      if (userDir !== undefined)
        run.warnings.push(
          ...(await checkSavedFiles(userDir, inLayer('user'), (f) => join(userDir, f))),
        );
      run.outcome = run.saved.length > 0 ? 'saved' : 'nothing_saved';
      if (run.saved.length > 0) run.notice = formatSavedNotice(run.savedTo);
      return run;
    } catch (error) {
      run.outcome = 'failed';
      run.reason = 'error';
      run.error = isEngramError(error)
        ? error
        : new EngramError('io_error', `extraction failed: ${(error as Error).message}`, {
            cause: error,
          });
      return run;
    } finally {
      if (controller === abort) controller = undefined;
    }
  }

  /** Run a decided extraction, then the single trailing run for contexts that arrived meanwhile. */
  function start(
    context: ExtractionContext,
    decision: RunDecision,
    trailing: boolean,
  ): Promise<ExtractionRun> {
    inProgress = true;
    const first = runFork(context, decision, trailing);
    const whole = (async () => {
      try {
        report(await first);
        for (let next = takePending(); next !== undefined; next = takePending()) {
          const d = decide(next, true);
          report(d.kind === 'run' ? await runFork(next, d, true) : skip(d, true, next));
        }
      } catch (error) {
        // Fire-and-forget must never become an unhandled rejection in the host's process.
        const run = base(true, 0);
        run.outcome = 'failed';
        run.reason = 'error';
        run.error = new EngramError('io_error', `extraction failed: ${(error as Error).message}`, {
          cause: error,
        });
        report(run);
      } finally {
        inProgress = false;
      }
    })();
    inFlight.add(whole);
    void whole.finally(() => inFlight.delete(whole));
    return first;
  }

  function takePending(): ExtractionContext | undefined {
    const next = pending;
    pending = undefined;
    return next;
  }

  async function drain(timeoutMs: number = DEFAULT_EXTRACTION_DRAIN_MS): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((done) => {
      timer = setTimeout(() => done(false), timeoutMs);
      timer.unref?.();
    });
    try {
      while (inFlight.size > 0) {
        const settled = Promise.allSettled([...inFlight]).then(() => true as const);
        if (!(await Promise.race([settled, timeout]))) return false;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    onTurnEnd(live: ExtractionContext): TriggerResult {
      const context = snapshot(live);
      if (!isCompletedTurn(context.messages))
        return { status: 'ignored', reason: 'turn_not_complete' };
      if (inProgress) {
        // Coalesce: the newest context holds the whole history, so it replaces any older one.
        pending = context;
        return { status: 'queued' };
      }
      const decision = decide(context, false);
      if (decision.kind === 'skip') {
        report(skip(decision, false, context));
        return { status: 'skipped', reason: decision.reason };
      }
      void start(context, decision, false);
      return { status: 'started' };
    },

    async extractNow(live: ExtractionContext): Promise<ExtractionRun> {
      const context = snapshot(live);
      // One run at a time: the cursor is only ever moved by the run that read it.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      const decision = decide(context, true);
      if (decision.kind === 'skip') {
        const run = skip(decision, false, context);
        report(run);
        return run;
      }
      return start(context, decision, false);
    },

    drain,

    abort(): void {
      pending = undefined;
      controller?.abort(new EngramError('aborted', 'extraction aborted'));
    },

    state(): ExtractorState {
      return { cursor, inProgress, hasPending: pending !== undefined, turnsSinceLastRun };
    },
  };
}
