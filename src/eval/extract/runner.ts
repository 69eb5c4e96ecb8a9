/**
 * Runs the write-gate cases: each in a fresh memory directory, through the real extractor (the
 * same fork, sandbox and prompt as production), then scores what was written.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExtractor } from '../../extract/extractor.js';
import { FILE_TOOL_DEFINITIONS } from '../../llm/file-tools.js';
import type { LanguageModel, Usage } from '../../llm/types.js';
import { memoryGuidance } from '../../memdir/prompts.js';
import { scanMemories } from '../../memdir/scan.js';
import { type EvalMemory, EXTRACT_EVAL_CASES, type ExtractEvalCase } from './cases.js';

export interface ExtractEvalOptions {
  model: LanguageModel;
  cases?: readonly ExtractEvalCase[];
  /** Runs per case; a model is not deterministic, so a pass rate needs several (default 1). */
  repeat?: number;
  /** Called after each run, for progress output. */
  onResult?: (result: CaseResult) => void;
}

export interface CaseResult {
  id: string;
  attempt: number;
  passed: boolean;
  detail: string;
  /** How the extraction itself ended (a failed run is scored on what it left on disk). */
  outcome: string;
  saved: string[];
  turns: number;
  usage?: Usage;
}

export interface ExtractEvalReport {
  model: string;
  results: CaseResult[];
  passed: number;
  total: number;
  /** Pass count per case id. */
  byCase: Record<string, { passed: number; runs: number }>;
}

/** The main agent's system prompt in the eval: a coding agent that has engram's memory guidance. */
export function evalSystemPrompt(memoryDir: string): string {
  return `You are a coding agent working in a TypeScript web service repository.\n\n${memoryGuidance({ memoryDir })}`;
}

async function readMemories(memoryDir: string): Promise<EvalMemory[]> {
  const scan = await scanMemories(memoryDir);
  return Promise.all(
    scan.memories.map(async (m) => ({
      file: m.file,
      type: m.type,
      status: m.status,
      description: m.description ?? '',
      text: await readFile(m.path, 'utf8'),
    })),
  );
}

async function runCase(
  model: LanguageModel,
  testCase: ExtractEvalCase,
  attempt: number,
): Promise<CaseResult> {
  const root = await mkdtemp(join(tmpdir(), `engram-eval-extract-${testCase.id}-`));
  const memoryDir = join(root, 'memory');
  try {
    const extractor = createExtractor({ memoryDir, model, cwd: root });
    const run = await extractor.extractNow({
      system: evalSystemPrompt(memoryDir),
      tools: FILE_TOOL_DEFINITIONS,
      messages: testCase.messages,
    });
    const score = testCase.score(await readMemories(memoryDir));
    const result: CaseResult = {
      id: testCase.id,
      attempt,
      passed: score.passed,
      detail:
        run.outcome === 'failed' ? `${score.detail} (run failed: ${run.reason})` : score.detail,
      outcome: run.outcome,
      saved: run.saved,
      turns: run.turns,
    };
    if (run.usage) result.usage = run.usage;
    return result;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Run every case `repeat` times, one after another (the order is the cases' order). */
export async function runExtractEval(options: ExtractEvalOptions): Promise<ExtractEvalReport> {
  const cases = options.cases ?? EXTRACT_EVAL_CASES;
  const repeat = Math.max(1, options.repeat ?? 1);
  const results: CaseResult[] = [];
  const byCase: ExtractEvalReport['byCase'] = {};
  for (const testCase of cases) {
    byCase[testCase.id] = { passed: 0, runs: 0 };
    for (let attempt = 1; attempt <= repeat; attempt++) {
      const result = await runCase(options.model, testCase, attempt);
      results.push(result);
      byCase[testCase.id]!.runs++;
      if (result.passed) byCase[testCase.id]!.passed++;
      options.onResult?.(result);
    }
  }
  return {
    model: `${options.model.provider}:${options.model.modelId}`,
    results,
    passed: results.filter((r) => r.passed).length,
    total: results.length,
    byCase,
  };
}
