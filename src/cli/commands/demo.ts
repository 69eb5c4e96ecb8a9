import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { openMemory } from '../../facade/index.js';
import type { Message } from '../../llm/types.js';
import { EngramError } from '../../util/errors.js';
import { printJson } from '../common.js';
import type { CliIo } from '../io.js';

/** The sample project shipped with the package (`examples/sample-project`). */
function sampleProject(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return resolve(here, '..', '..', '..', 'examples', 'sample-project');
}

/** Four turns: three that one memory each should help with, one that no memory is about (zero is an answer). */
export const DEMO_PROMPTS = [
  'Add an API handler that refunds a payment',
  'Latency alerts fired overnight: which dashboard shows them?',
  'Explain how state works in this React component',
  'What is the capital of France?',
];

interface DemoOptions {
  cwd?: string;
  dir?: string;
  json?: boolean;
}

/**
 * `engram demo`: run engram's main job on embedded defaults (offline ranker, no server, no key)
 * and print exactly what an agent would receive: the system prompt section once, then the
 * injected memories for each user turn.
 */
export function registerDemoCommands(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(
      'show what an agent receives from engram for a sample project (offline: no server, no key)',
    )
    .argument('[prompts...]', 'user messages to recall for (default: three sample turns)')
    .option('--cwd <dir>', 'the project (default: the shipped examples/sample-project)')
    .option('--dir <path>', 'memory directory (default: <project>/memory when it exists)')
    .option('--json', 'print machine-readable JSON')
    .action(async (prompts: string[], opts: DemoOptions) => {
      const shipped = opts.cwd === undefined;
      const requested = resolve(io.cwd, opts.cwd ?? sampleProject());
      if (!existsSync(requested)) {
        throw new EngramError('not_found', `No such project directory: ${requested}`);
      }
      // The shipped sample is part of the package: run on a temporary copy so the demo never
      // writes its caches and recall log into the installed files (which may be read-only).
      const scratch = shipped ? mkdtempSync(join(tmpdir(), 'engram-demo-')) : undefined;
      try {
        const cwd = scratch ? join(scratch, 'sample-project') : requested;
        if (scratch) cpSync(requested, cwd, { recursive: true });
        await runDemo(io, { ...opts, cwd, shownAs: requested, prompts });
      } finally {
        if (scratch) rmSync(scratch, { recursive: true, force: true });
      }
    });
}

async function runDemo(
  io: CliIo,
  opts: DemoOptions & { cwd: string; shownAs: string; prompts: string[] },
): Promise<void> {
  const { cwd, prompts } = opts;
  const projectMemory = join(cwd, 'memory');
  const memoryDir = opts.dir
    ? resolve(io.cwd, opts.dir)
    : existsSync(projectMemory)
      ? projectMemory
      : undefined;
  const memory = await openMemory({
    cwd,
    env: io.env,
    homedir: io.homedir,
    ...(memoryDir ? { memoryDir } : {}),
    sessionId: 'demo',
  });
  const system = await memory.systemPrompt();
  const history: Message[] = [];
  const turns: Array<{ prompt: string; injection: string }> = [];
  for (const [i, prompt] of (prompts.length > 0 ? prompts : DEMO_PROMPTS).entries()) {
    await memory.beforeTurn(prompt, history);
    const injection = memory.attachments(history).join('');
    turns.push({ prompt, injection });
    // Keep the injection in the history, as a host would, so later turns do not repeat it.
    history.push({
      id: `demo-user-${i}`,
      role: 'user',
      content: [
        { type: 'text', text: prompt },
        ...(injection ? [{ type: 'text' as const, text: injection }] : []),
      ],
    });
  }
  await memory.close({ timeoutMs: 1_000 });
  if (opts.json) {
    printJson(io, {
      project: opts.shownAs,
      memoryDir: memory.memoryDir,
      systemPrompt: system,
      turns,
    });
    return;
  }
  io.stdout(
    `engram demo — project ${opts.shownAs}${opts.shownAs === cwd ? '' : ` (run in a temporary copy: ${cwd})`}\nmemory directory ${memory.memoryDir}\n`,
  );
  io.stdout('recall: offline ranker (embedded default: no server, no API key)\n\n');
  io.stdout(
    `${'='.repeat(72)}\nSYSTEM PROMPT SECTION (same bytes for the whole session)\n${'='.repeat(72)}\n${system}\n`,
  );
  for (const turn of turns) {
    io.stdout(`${'='.repeat(72)}\nUSER: ${turn.prompt}\n${'-'.repeat(72)}\n`);
    io.stdout(
      turn.injection ? `${turn.injection}\n\n` : '(no memory is relevant: nothing injected)\n\n',
    );
  }
}
