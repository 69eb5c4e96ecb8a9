import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { mentionedAgents } from '../config/agent-memory.js';
import type { Dreamer } from '../dream/index.js';
import { createClaimVerifier } from '../drift/verifier.js';
import type { ExtractionRun, Extractor } from '../extract/types.js';
import { FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import type { ConversationPrefix, Message } from '../llm/types.js';
import type { RecallHandle } from '../recall/index.js';
import { startRecall } from '../recall/index.js';
import { readSessionNotes } from '../session/read-notes.js';
import type { SessionNotes } from '../session/session-notes.js';
import {
  extractionCursorPath,
  readExtractionCursor,
  writeExtractionCursor,
} from '../session/session-store.js';
import { withFileLock } from '../util/file-lock.js';
import type { RuntimeInternals } from './create-engram.js';
import type {
  Engram,
  EngramEvent,
  EngramSession,
  OpenSessionOptions,
  TurnOutcome,
} from './types.js';

/** How long `close()` waits for background work by default. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

type EventBody = EngramEvent extends infer E
  ? E extends EngramEvent
    ? Omit<E, 'sessionId'>
    : never
  : never;

export function openEngramSession(
  engram: Engram,
  options: OpenSessionOptions,
  internals: RuntimeInternals,
): EngramSession {
  const sessionId = options.sessionId ?? randomUUID();
  const { environment, memoryDir, model, clock } = engram;
  const emit = (body: EventBody) => {
    const event = { ...body, sessionId } as EngramEvent;
    for (const listener of [internals.emit, options.onEvent]) {
      try {
        listener?.(event);
      } catch {
        // A host callback must not break memory upkeep.
      }
    }
  };
  const enabled = (flag: boolean | undefined) =>
    model !== undefined && flag !== false && engram.memoryEnabled;
  // Computed when first needed: the id is checked then, not when a door merely opens the session.
  const cursorPath = () => extractionCursorPath(environment, sessionId);
  // Extraction may route facts about the person to the user layer, which every project reads.
  const userDir = engram.memoryChain.find((l) => l.layer === 'user')?.dir;
  const layerDirs = { memoryDir, ...(userDir === undefined ? {} : { userDir }) };

  /**
   * The agent a turn's recall belongs to: the session's own (a sub-agent's conversation), else the
   * first known agent the prompt `@`-mentions. `@src/x.ts` names a file, not an agent, so only
   * names engram has memory or a snapshot for count.
   */
  const agentFor = (text: string): string | undefined => {
    if (options.agent !== undefined) return options.agent;
    const mentioned = mentionedAgents(text);
    if (mentioned.length === 0) return undefined;
    const known = new Set(engram.knownAgents());
    return mentioned.find((name) => known.has(name));
  };

  // Loaded on first use, like the dreamer and the extractor: a hook process that only recalls
  // never loads the notes agent. Without a model (or with notes off) it writes no notes, and
  // compaction falls back to truncation.
  let notesMemo: Promise<SessionNotes> | undefined;
  const notesOf = () => {
    notesMemo ??= import('../session/session-notes.js').then(({ createSessionNotes }) =>
      createSessionNotes({
        environment,
        sessionId,
        ...(enabled(options.sessionNotes) ? { model: model! } : {}),
        clock,
        onUpdate: (outcome) => emit({ kind: 'notes', outcome }),
      }),
    );
    return notesMemo;
  };
  let dreamer: Promise<Dreamer> | undefined;
  const dreamerOf = () => {
    dreamer ??= engram.dreamer();
    return dreamer;
  };

  const prompts = new Map<boolean, Promise<string>>();
  let recall: RecallHandle | undefined;
  let extractor: Promise<Extractor> | undefined;
  const background = new Set<Promise<unknown>>();
  let closed = false;
  // The latest turn's hand-off to the notes updater: compact() waits for it, so a compaction right
  // after a turn sees the update that turn queued.
  let handOff: Promise<unknown> = Promise.resolve();

  const track = (where: string, work: Promise<unknown>) => {
    const p = work.catch((error: unknown) => emit({ kind: 'error', where, error }));
    background.add(p);
    void p.finally(() => background.delete(p));
  };

  const saveCursor = async (run: ExtractionRun, transcriptPath?: string) => {
    if (run.outcome === 'failed' || run.cursorAfter === undefined) return;
    await writeExtractionCursor(cursorPath(), {
      cursor: run.cursorAfter,
      updatedAt: new Date(clock.now()).toISOString(),
      ...(transcriptPath ? { transcriptPath } : {}),
    });
  };

  /** The background extractor of a long-running host, resumed from the stored cursor. */
  const backgroundExtractor = () => {
    extractor ??= Promise.all([
      readExtractionCursor(cursorPath()),
      import('../extract/extractor.js'),
    ]).then(([stored, { createExtractor }]) =>
      createExtractor({
        ...layerDirs,
        model: model!,
        clock,
        ...(stored.cursor ? { cursor: stored.cursor } : {}),
        onRun: (run) => {
          emit({ kind: 'extraction', run });
          track('extraction cursor', saveCursor(run));
        },
        onSaved: (notice) => emit({ kind: 'saved', notice }),
      }),
    );
    return extractor;
  };

  const prefixOf = (conversation: readonly Message[] | ConversationPrefix, system: string) =>
    Array.isArray(conversation)
      ? { system, tools: FILE_TOOL_DEFINITIONS, messages: [...conversation] }
      : (conversation as ConversationPrefix);

  const session: EngramSession = {
    sessionId,
    memoryDir,
    systemPrompt(promptOptions = {}) {
      const after = promptOptions.afterCompaction === true;
      let prompt = prompts.get(after);
      if (!prompt) {
        // Loaded on first use: a hook process that only recalls never reads the index.
        const agent = options.agent;
        // An agent's first use seeds its memory from a committed snapshot: seen in this prompt.
        const prepared = agent === undefined ? Promise.resolve() : engram.prepareAgent(agent);
        prompt = Promise.all([import('./system-prompt.js'), prepared]).then(
          ([{ buildSystemPrompt }]) =>
            buildSystemPrompt({
              environment,
              memoryDir,
              sessionId,
              instructions: options.instructions !== false,
              afterCompaction: after,
              ...(userDir !== undefined ? { userDir } : {}),
              // A sub-agent's session shows its own memory, as its recall draws on it alone.
              ...(agent !== undefined
                ? { agent: { name: agent, layers: engram.agentChain(agent) } }
                : {}),
            }),
        );
        prompts.set(after, prompt);
        prompt.catch(() => prompts.delete(after));
      }
      return prompt;
    },
    beforeTurn(userText, history) {
      recall?.dispose();
      const agent = agentFor(userText);
      // Seeding from a snapshot is not waited for: a prefetch never holds the turn.
      if (agent !== undefined) track('agent memory', engram.prepareAgent(agent));
      const handle = startRecall(
        internals.recallOptions({
          query: userText,
          ...(agent !== undefined ? { agent } : {}),
          messages: history,
          ...(options.recallLimits ? { limits: options.recallLimits } : {}),
          ...(options.modelRecall === false ? { modelRecall: false } : {}),
          // Recall is prefetched off the turn's path, so it may wait for the claim checks.
          verifier: createClaimVerifier({ projectDir: environment.cwd, memoryDir }),
        }),
      );
      recall = handle;
      return handle.done.then(() => {
        if (handle.error !== undefined) emit({ kind: 'recall_error', error: handle.error });
      });
    },
    attachments() {
      const result = recall?.poll();
      if (result === undefined) return [];
      emit({ kind: 'recall', result });
      return result.text === '' ? [] : [result.text];
    },
    afterTurn(conversation) {
      if (closed) return;
      const run = async () => {
        const system = await session.systemPrompt();
        const prefix = prefixOf(conversation, system);
        if (enabled(options.extraction)) (await backgroundExtractor()).onTurnEnd(prefix);
        (await notesOf()).onTurnEnd(prefix);
        if (enabled(options.consolidation)) {
          track(
            'consolidation',
            dreamerOf()
              .then((d) => d.maybeDream({ currentSessionId: sessionId, prefix }))
              .then((outcome) => emit({ kind: 'dream', outcome })),
          );
        }
      };
      handOff = run();
      track('after turn', handOff);
    },
    async compact(history) {
      const system = await session.systemPrompt();
      await handOff.catch(() => {});
      // The summary fallback needs a model even when background notes are off.
      if (model !== undefined && !enabled(options.sessionNotes)) {
        const { createSessionNotes } = await import('../session/session-notes.js');
        return createSessionNotes({ environment, sessionId, model }).compact(history, { system });
      }
      return (await notesOf()).compact(history, { system });
    },
    async close(closeOptions = {}) {
      closed = true;
      recall?.dispose();
      const timeoutMs = closeOptions.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
      const deadline = Date.now() + timeoutMs;
      const left = () => Math.max(0, deadline - Date.now());
      // Work started by work (after turn → extraction → its cursor) lands in the set later:
      // wait until it is quiet, drain the extractor, then wait for what the drain started.
      const quiet = async () => {
        while (background.size > 0 && left() > 0) {
          await Promise.race([
            Promise.all([...background]),
            new Promise((r) => setTimeout(r, left()).unref()),
          ]);
        }
      };
      await quiet();
      if (extractor) {
        const ex = await extractor;
        if (!(await ex.drain(left()))) ex.abort();
      }
      await quiet();
      if (notesMemo) await (await notesMemo).drain(left());
    },
    async recall(request) {
      const agent = request.agent ?? agentFor(request.query);
      const result = await engram.recall({
        ...(options.recallLimits ? { limits: options.recallLimits } : {}),
        ...(options.modelRecall === false ? { modelRecall: false } : {}),
        ...request,
        ...(agent !== undefined ? { agent } : {}),
      });
      emit({ kind: 'recall', result });
      return result;
    },
    async completeTurn(conversation, turnOptions = {}) {
      const outcome: TurnOutcome = {};
      if (model === undefined || !engram.memoryEnabled) {
        outcome.extraction = { outcome: 'skipped', reason: 'no model configured' };
        return outcome;
      }
      if (enabled(options.extraction)) {
        outcome.extraction = await extractSinceCursor(conversation, turnOptions.transcriptPath);
      }
      if (enabled(options.sessionNotes)) {
        outcome.notes = await (await notesOf()).updateNow(conversation);
        emit({ kind: 'notes', outcome: outcome.notes });
      }
      if (enabled(options.consolidation)) {
        outcome.dream = await (await dreamerOf()).maybeDream({ currentSessionId: sessionId });
        emit({ kind: 'dream', outcome: outcome.dream });
      }
      return outcome;
    },
    async updateNotes(conversation, notesOptions = {}) {
      const outcome = await (await notesOf()).updateNow(conversation, {
        ...(notesOptions.force ? { force: true } : {}),
        ...(notesOptions.signal ? { signal: notesOptions.signal } : {}),
      });
      emit({ kind: 'notes', outcome });
      return outcome;
    },
    readNotes: () => readSessionNotes(environment, sessionId),
  };

  /**
   * One extraction over what the conversation said since the stored cursor, awaited. Two turns
   * ending close together (two hook processes) run one after the other, the second from the new
   * cursor.
   */
  async function extractSinceCursor(
    conversation: ConversationPrefix,
    transcriptPath: string | undefined,
  ): Promise<TurnOutcome['extraction']> {
    const path = cursorPath();
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const [{ createExtractor }, { messagesSinceCursor }, backoff, policy] = await Promise.all([
      import('../extract/extractor.js'),
      import('../extract/since-cursor.js'),
      import('../extract/backoff.js'),
      import('../extract/policy.js'),
    ]);
    const config = backoff.extractionConfigKey(model!, policy.DEFAULT_EXTRACTION_MAX_TURNS);
    return withFileLock(
      `${path}.lock`,
      async () => {
        const stored = await readExtractionCursor(path);
        const messages = messagesSinceCursor(conversation.messages, stored.cursor);
        if (messages.length === 0)
          return { outcome: 'skipped' as const, reason: 'no new messages' };
        // The same failure on the same messages is not repeated every turn; said once.
        const gate = backoff.decideBackoff(stored.failure, conversation.messages, config);
        if (gate.kind === 'skip' && stored.failure) {
          if (!stored.failure.announced) {
            const text = backoff.backoffMessage(stored.failure, gate.needed);
            emit({ kind: 'backoff', message: text });
            await writeExtractionCursor(path, {
              ...stored,
              failure: { ...stored.failure, announced: true },
            });
          }
          return { outcome: 'skipped' as const, reason: 'backed_off' };
        }
        const run = await createExtractor({ ...layerDirs, model: model!, clock }).extractNow({
          ...conversation,
          tools: conversation.tools.length > 0 ? conversation.tools : FILE_TOOL_DEFINITIONS,
          messages,
        });
        emit({ kind: 'extraction', run });
        const failure = backoff.nextFailureRecord(
          stored.failure,
          run,
          conversation.messages.at(-1)?.id,
          config,
        );
        if (run.outcome === 'failed') {
          if (failure) await writeExtractionCursor(path, { ...stored, failure });
        } else {
          await saveCursor(run, transcriptPath);
        }
        return run;
      },
      { timeoutMs: 120_000, staleMs: 600_000 },
    );
  }

  return session;
}
