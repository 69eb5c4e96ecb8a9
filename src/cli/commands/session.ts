import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  loadTranscriptFile,
  type TranscriptReadResult,
  withoutThinking,
} from '../../llm/claude-code-transcript.js';
import type { LanguageModel } from '../../llm/types.js';
import {
  awaySummary,
  compactSession,
  readSessionNotes,
  type SessionCompaction,
  updateSessionNotes,
} from '../../session/index.js';
import { WAIT_TIMEOUT_MS } from '../../session/update-record.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { EngramError } from '../../util/errors.js';
import {
  CliExit,
  type CommonOptions,
  configuredModel,
  environmentFor,
  outputFileIn,
  printJson,
} from '../common.js';
import type { CliIo } from '../io.js';

interface TranscriptOptions {
  transcript: string;
  session?: string;
  json?: boolean;
}

/**
 * The session's transcript. `forModel`: it goes to engram's model (notes, "where were we"), which
 * is not the one that thought in it, so thinking blocks are dropped. Compaction keeps them in the
 * history it hands back; its summary request drops them itself.
 */
async function loadTranscript(io: CliIo, opts: TranscriptOptions, forModel: boolean) {
  const path = resolve(io.cwd, opts.transcript);
  const loaded = await loadTranscriptFile(path);
  const read = forModel ? { ...loaded, messages: withoutThinking(loaded.messages) } : loaded;
  for (const w of read.warnings) io.stderr(`engram: warning: ${path}: ${w}\n`);
  if (read.messages.length === 0) {
    // Nothing to compact or take notes from: most likely the wrong file, so say what was expected.
    throw new EngramError(
      'invalid_input',
      `${path} holds no conversation messages (expected a Claude Code .jsonl transcript, a JSON array of { role, content } messages, or { "messages": [...] })`,
    );
  }
  const sessionId = opts.session ?? read.sessionId ?? basename(path).replace(/\.[^.]+$/, '');
  return { path, read, sessionId };
}

function requireModel(io: CliIo, opts: CommonOptions): LanguageModel {
  const resolution = configuredModel(io, opts);
  if (!resolution.ok) throw new EngramError('no_model', resolution.reason);
  return resolution.model;
}

function optionalModel(io: CliIo, opts: CommonOptions, wanted: boolean): LanguageModel | undefined {
  if (!wanted) return undefined;
  const resolution = configuredModel(io, opts);
  return resolution.ok ? resolution.model : undefined;
}

/**
 * The 15 s a compaction may wait for a running notes update, counted from this process's launch:
 * a user (or script) timing `engram compact` sees it proceed within 15 s, Node's own start-up
 * included, with 0.3 s left to print the result and exit. Never below 10 s, so a long-lived
 * process calling the CLI in-process still waits.
 */
export function cliWaitTimeout(msSinceLaunch: number): number {
  const budget = WAIT_TIMEOUT_MS - EXIT_ALLOWANCE_MS - msSinceLaunch;
  return Math.round(Math.min(WAIT_TIMEOUT_MS, Math.max(10_000, budget)));
}
const EXIT_ALLOWANCE_MS = 300;

function compactionJson(c: SessionCompaction, read: TranscriptReadResult) {
  return {
    sessionId: c.sessionId,
    method: c.method,
    why: c.why,
    // Same text as `why`, under the name the other engram commands use.
    reason: c.why,
    totalMessages: read.messages.length,
    kept: { ...c.kept, end: c.kept.count ? read.messages.length - 1 : null },
    removed: c.removed,
    tokensBefore: c.tokensBefore,
    tokensAfter: c.tokensAfter,
    // Stable keys: `id` is null when the notes cover nothing yet.
    boundary: { id: c.boundary.id ?? null, index: c.boundary.index },
    notesPath: c.notesPath,
    truncatedSections: c.truncatedSections,
    wait: c.wait,
    warnings: c.warnings,
  };
}

function printCompaction(io: CliIo, c: SessionCompaction, total: number): void {
  const k = c.kept;
  const range = k.count ? `#${k.start}–#${total - 1}` : 'none';
  io.stdout(
    `method: ${c.method} (${c.why})\n` +
      `kept: messages ${range} (${k.count} of ${total}), ${k.tokens} tokens, ${k.textMessages} with text\n` +
      (k.count ? `  first id: ${k.firstId}\n  last id:  ${k.lastId}\n` : '') +
      `removed: ${c.removed.count} messages, ${c.removed.tokens} tokens\n` +
      `tokens: ${c.tokensBefore} -> ${c.tokensAfter}\n` +
      `why this range:\n${k.reasons.map((r) => `  - ${r}\n`).join('')}` +
      (c.truncatedSections.length
        ? `notes sections shortened: ${c.truncatedSections.join(', ')}\n`
        : '') +
      (c.wait.outcome === 'none_running'
        ? ''
        : `waited for the notes update: ${c.wait.outcome} after ${c.wait.waitedMs} ms\n`),
  );
}

export function registerSessionCommands(program: Command, io: CliIo): void {
  const session = program
    .command('session')
    .description('session notes: the working memory kept during a long session');

  session
    .command('notes <id>')
    .description('print the notes of a session')
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--json', 'print machine-readable JSON')
    .action(async (id: string, opts: { json?: boolean; cwd?: string }) => {
      const view = await readSessionNotes(environmentFor(io, opts), id);
      if (!view.exists)
        throw new EngramError(
          'not_found',
          `No notes for session ${view.sessionId} (looked for ${view.path})`,
        );
      if (opts.json) {
        printJson(io, {
          sessionId: view.sessionId,
          path: view.path,
          templateOnly: view.templateOnly,
          tokens: view.size.totalTokens,
          sections: view.size.sections,
          oversized: view.size.oversized,
          cursor: view.cursor,
          running: view.running ?? null,
          content: view.content,
        });
        return;
      }
      io.stdout(view.content.endsWith('\n') ? view.content : `${view.content}\n`);
    });

  session
    .command('update')
    .description(
      "update a session's notes from a transcript (a forked model call that may edit only the notes)",
    )
    .requiredOption(
      '--transcript <file>',
      'Claude Code .jsonl transcript or JSON array of messages',
    )
    .option('--session <id>', 'session id (default: from the transcript, else the file name)')
    .option('--force', 'update even when the thresholds say it is too early')
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--json', 'print machine-readable JSON')
    .action(async (opts: TranscriptOptions & { force?: boolean; cwd?: string }) => {
      const here = environmentFor(io, opts);
      const { read, sessionId } = await loadTranscript(here, opts, true);
      const model = requireModel(io, opts);
      const outcome = await updateSessionNotes({
        // The session's project is where it ran (Claude Code records its cwd), not where this runs.
        environment: read.cwd ? { ...here, cwd: resolve(here.cwd, read.cwd) } : here,
        sessionId,
        model,
        prefix: { tools: [], messages: read.messages },
        force: opts.force === true,
      });
      for (const w of outcome.warnings) io.stderr(`engram: warning: ${w}\n`);
      for (const s of outcome.selfReferences) {
        io.stderr(
          `engram: warning: notes line ${s.line} talks about the note-taking itself: ${s.text}\n`,
        );
      }
      if (opts.json) {
        const { sizeBefore, sizeAfter, ...rest } = outcome;
        printJson(io, {
          sessionId,
          ...rest,
          tokensBefore: sizeBefore?.totalTokens,
          tokensAfter: sizeAfter?.totalTokens,
        });
      } else {
        io.stdout(`${outcome.status}: ${outcome.reason}\nnotes: ${outcome.notesPath}\n`);
        for (const r of outcome.repairs) io.stdout(`repaired: ${r}\n`);
      }
      if (outcome.status === 'failed') throw new CliExit(1);
    });

  session
    .command('away')
    .description(
      'print a 1-3 sentence "where were we" for a transcript, from its notes and last messages',
    )
    .requiredOption(
      '--transcript <file>',
      'Claude Code .jsonl transcript or JSON array of messages',
    )
    .option('--session <id>', 'session id (default: from the transcript, else the file name)')
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--json', 'print machine-readable JSON: {sessionId, summary}')
    .action(async (opts: TranscriptOptions & { cwd?: string }) => {
      const here = environmentFor(io, opts);
      const { read, sessionId } = await loadTranscript(here, opts, true);
      const model = requireModel(io, opts); // it resolves --cwd itself: a relative one only once
      const view = await readSessionNotes(here, sessionId);
      const notes = view.exists && !view.templateOnly ? view.content : undefined;
      const summary = await awaySummary(read.messages, notes, { model });
      if (opts.json) printJson(here, { sessionId, summary });
      else here.stdout(`${summary}\n`);
    });

  program
    .command('compact')
    .description('compact a transcript with its session notes and print the kept range and why')
    .requiredOption(
      '--transcript <file>',
      'Claude Code .jsonl transcript or JSON array of messages',
    )
    .option('--session <id>', 'session id (default: from the transcript, else the file name)')
    .option('--out <file>', 'write the compacted history as a JSON array of messages')
    .option('--no-model', 'never call a model: without usable notes, truncate')
    .option('--cwd <dir>', 'act as if run from this directory')
    .option('--json', 'print machine-readable JSON')
    .action(async (opts: TranscriptOptions & { out?: string; model?: boolean; cwd?: string }) => {
      const here = environmentFor(io, opts);
      const out = opts.out !== undefined ? outputFileIn(here.cwd, opts.out, '--out') : undefined;
      const { read, sessionId } = await loadTranscript(here, opts, false);
      const model = optionalModel(io, opts, opts.model !== false);
      const result = await compactSession({
        environment: here,
        sessionId,
        messages: read.messages,
        // A preview: the transcript stays as it is, so the notes cursor must not move.
        record: false,
        wait: { timeoutMs: cliWaitTimeout(performance.now()) },
        ...(model ? { model } : {}),
      });
      if (out !== undefined)
        await writeFileAtomic(out, `${JSON.stringify(result.messages, null, 2)}\n`);
      for (const w of result.warnings) io.stderr(`engram: warning: ${w}\n`);
      if (opts.json) printJson(io, compactionJson(result, read));
      else printCompaction(io, result, read.messages.length);
    });
}
