import type { Command } from 'commander';
import { redactUrlCredentials } from '../../confine/policy.js';
import { isModelError, MODEL_CHECK_PROMPT } from '../../llm/index.js';

/** Enough for a reasoning model (gpt-5-mini) to think briefly and still answer. */
const MODEL_CHECK_MAX_TOKENS = 256;

import { EngramError } from '../../util/errors.js';
import {
  CliExit,
  type CommonOptions,
  configuredModel,
  printJson,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

/** The model named in settings (`"model": "anthropic:<id>"`), if any; the environment wins. */
export function registerModelsCommands(program: Command, io: CliIo): void {
  const models = program.command('models').description('the model engram uses for background work');

  withCommonOptions(models.command('check'))
    .description('make one small real call to the configured model and print the model and usage')
    .option('--timeout <ms>', 'give up after this many milliseconds', '60000')
    .action(async (opts: CommonOptions & { timeout: string }) => {
      const timeoutMs = Number(opts.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
        throw new EngramError('invalid_input', '--timeout needs a positive number of milliseconds');
      const resolution = configuredModel(io, opts);
      if (!resolution.ok) {
        if (opts.json) printJson(io, { ok: false, configured: false, reason: resolution.reason });
        else io.stderr(`engram: ${resolution.reason}\n`);
        throw new CliExit(1);
      }
      const started = Date.now();
      // --timeout bounds the whole check, retries included, not just one attempt.
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      try {
        const response = await resolution.model.generate({
          tools: [],
          messages: [
            {
              id: 'models-check',
              role: 'user',
              content: [{ type: 'text', text: MODEL_CHECK_PROMPT }],
            },
          ],
          // Room for a reasoning model's hidden thinking before its one-word reply.
          maxTokens: MODEL_CHECK_MAX_TOKENS,
          timeoutMs,
          signal: deadline.signal,
        });
        const reply = response.message.content
          .filter((b) => b.type === 'text')
          .map((b) => b.text)
          .join('')
          .trim();
        const result = {
          ok: true,
          configured: true,
          provider: resolution.model.provider,
          model: response.model,
          description: resolution.description,
          reply,
          stopReason: response.stopReason,
          usage: response.usage,
          durationMs: Date.now() - started,
        };
        if (opts.json) return printJson(io, result);
        const u = response.usage;
        io.stdout(
          `model: ${result.model} (${resolution.description})\n` +
            `reply: ${reply || '(no text)'}\n` +
            `usage: ${u.inputTokens} input, ${u.outputTokens} output, ${u.cacheReadTokens} cache read, ${u.cacheWriteTokens} cache write tokens\n` +
            `time: ${result.durationMs} ms\n`,
        );
      } catch (error) {
        // An SDK's message may name the request URL, credentials included.
        const message = redactUrlCredentials(
          deadline.signal.aborted
            ? `no answer within ${timeoutMs} ms (--timeout)`
            : error instanceof Error
              ? error.message
              : String(error),
        );
        const details = isModelError(error)
          ? { status: error.status ?? null, isRetryable: error.isRetryable }
          : {};
        if (opts.json)
          printJson(io, {
            ok: false,
            configured: true,
            description: resolution.description,
            error: { message, ...details },
          });
        else io.stderr(`engram: ${resolution.description} failed: ${message}\n`);
        throw new CliExit(1);
      } finally {
        clearTimeout(timer);
      }
    });
}
