import { resolve } from 'node:path';
import type { Command } from 'commander';
import { redactUrlCredentials } from '../../confine/policy.js';
import {
  createExtractor,
  DEFAULT_EXTRACTION_CONTEXT_TOKENS,
  type ExtractionRun,
  fitToContext,
} from '../../extract/index.js';
import { loadTranscriptFile, withoutThinking } from '../../llm/claude-code-transcript.js';
import { FILE_TOOL_DEFINITIONS } from '../../llm/file-tools.js';
import { memoryGuidance } from '../../memdir/prompts.js';
import { EngramError } from '../../util/errors.js';
import {
  CliExit,
  type CommonOptions,
  configuredModel,
  environmentFor,
  memoryChainFor,
  memoryDirFor,
  printJson,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

interface ExtractOptions extends CommonOptions {
  transcript: string;
  since?: string;
  maxContextTokens: string;
}

function describeRun(run: ExtractionRun): string {
  switch (run.outcome) {
    case 'saved':
      return `${run.notice}\n`;
    case 'nothing_saved':
      return `Nothing worth saving in ${run.newMessageCount} messages.${run.finalText ? `\n${run.finalText.trim()}` : ''}\n`;
    case 'skipped':
      if (run.reason === 'main_agent_wrote')
        return `Skipped: the conversation already saved memories itself (${(run.mainAgentWrote ?? []).join(', ')}).\n`;
      return 'Nothing new to extract.\n';
    case 'failed':
      return `Extraction failed (${run.reason}).\n`;
  }
}

export function registerExtractCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('extract'))
    .description('run one background-style extraction over a transcript and save what qualifies')
    .requiredOption(
      '--transcript <file>',
      'a Claude Code .jsonl transcript, or a JSON array of messages',
    )
    .option('--since <uuid>', 'consider only messages after this message id (the last cursor)')
    .option(
      '--max-context-tokens <n>',
      'send at most this many (estimated) tokens of the newest turns',
      String(DEFAULT_EXTRACTION_CONTEXT_TOKENS),
    )
    .action(async (opts: ExtractOptions) => {
      const env = environmentFor(io, opts);
      const maxTokens = Number(opts.maxContextTokens);
      if (!Number.isInteger(maxTokens) || maxTokens < 1) {
        throw new EngramError('invalid_input', '--max-context-tokens needs a positive integer');
      }
      const resolution = configuredModel(io, opts);
      if (!resolution.ok) {
        const message = `extract needs a model. ${resolution.reason}`;
        // A script reading --json gets the same shape as a failed run, so it needs no second parser.
        if (opts.json)
          printJson(io, {
            status: 'failed',
            reason: 'no_model',
            saved: [],
            notice: null,
            cursor: opts.since ?? null,
            newMessageCount: 0,
            turns: 0,
            usage: null,
            warnings: [],
            memoryDir: null,
            userDir: null,
            savedTo: [],
            model: null,
            error: message,
          });
        throw new EngramError('no_model', message);
      }
      const dirResolution = memoryDirFor(io, opts);
      const memoryDir = dirResolution.path;
      // Facts about the person may go to the user layer, which every project reads.
      const userDir = memoryChainFor(io, opts, dirResolution).find((l) => l.layer === 'user')?.dir;
      const loaded = await loadTranscriptFile(resolve(env.cwd, opts.transcript));
      // Extraction runs on engram's model, not the one whose thinking the transcript holds.
      const transcript = { ...loaded, messages: withoutThinking(loaded.messages) };
      for (const w of transcript.warnings) io.stderr(`engram: warning: ${w}\n`);
      if (transcript.messages.length === 0 && transcript.warnings.length > 0) {
        // Not an empty session: nothing in the file could be read as a message.
        throw new EngramError(
          'invalid_input',
          `${opts.transcript}: no messages could be read (expected a Claude Code .jsonl transcript or a JSON array of messages)`,
        );
      }
      if (
        opts.dir === undefined &&
        opts.memoryDir === undefined &&
        transcript.cwd !== undefined &&
        resolve(transcript.cwd) !== resolve(env.cwd)
      ) {
        // The memory directory follows the working directory, not the transcript's project.
        io.stderr(
          `engram: note: the transcript was recorded in ${transcript.cwd}; saving to the memory directory for ${env.cwd} (${memoryDir}). Use --cwd ${transcript.cwd} to save to that project's instead.\n`,
        );
      }
      const sinceIndex =
        opts.since === undefined ? -1 : transcript.messages.findIndex((m) => m.id === opts.since);
      if (opts.since !== undefined && sinceIndex < 0) {
        throw new EngramError(
          'not_found',
          `--since ${opts.since}: no message with that id in ${opts.transcript}`,
        );
      }
      // A long session does not fit in one request: the newest whole turns are sent, and any
      // new message left out is reported rather than silently skipped.
      const fitted = fitToContext(transcript.messages, maxTokens);
      const messages = fitted.messages;
      if (fitted.dropped > 0) {
        const unseen = fitted.dropped - (sinceIndex + 1);
        io.stderr(
          `engram: warning: the transcript is longer than --max-context-tokens ${maxTokens}; sending the last ${messages.length} messages (~${fitted.tokens} tokens)${unseen > 0 ? `, so ${unseen} new messages are not considered` : ''}\n`,
        );
      }
      const extractor = createExtractor({
        memoryDir,
        ...(userDir === undefined ? {} : { userDir }),
        model: resolution.model,
        // Relative paths in the transcript's tool calls are relative to where that session ran.
        cwd: transcript.cwd ?? env.cwd,
        ...(opts.since === undefined ? {} : { cursor: opts.since }),
      });
      // Without a live host there is no request to share a cache with: the fork gets the memory
      // guidance as its system prompt and engram's own file tools.
      const run = await extractor.extractNow({
        system: memoryGuidance({ memoryDir }),
        tools: FILE_TOOL_DEFINITIONS,
        messages,
      });
      if (opts.json) {
        printJson(io, {
          status: run.outcome,
          reason: run.reason ?? null,
          saved: run.saved,
          notice: run.notice ?? null,
          cursor: run.cursorAfter ?? null,
          newMessageCount: run.newMessageCount,
          turns: run.turns,
          usage: run.usage ?? null,
          warnings: run.warnings.map(redactUrlCredentials),
          memoryDir,
          userDir: userDir ?? null,
          savedTo: run.savedTo,
          model: resolution.description,
          error: run.error ? redactUrlCredentials(run.error.message) : null,
        });
      } else {
        io.stdout(describeRun(run));
        for (const w of run.warnings) io.stderr(`engram: warning: ${redactUrlCredentials(w)}\n`);
        if (run.cursorAfter && run.outcome !== 'failed') io.stdout(`cursor: ${run.cursorAfter}\n`);
      }
      if (run.outcome === 'failed') {
        if (!opts.json && run.error)
          io.stderr(`engram: ${redactUrlCredentials(run.error.message)}\n`);
        throw new CliExit(1);
      }
    });
}
