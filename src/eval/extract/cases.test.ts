import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from '../../testing/index.js';
import { EXTRACT_EVAL_CASES } from './cases.js';
import { runExtractEvalCli } from './main.js';

// Proves the harness, not a model: for every case one scripted fork does the right thing and one
// does the classic wrong thing, and the scorer must tell them apart through the real extractor.
const memory = (type: string, description: string, body: string) =>
  `---\nname: ${description}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

function save(file: string, content: string): ScriptStep[] {
  return [
    {
      toolUse: [
        { name: 'write', input: { path: file, content } },
        { name: 'write', input: { path: 'MEMORY.md', content: `- [${file}](${file}) — x\n` } },
      ],
    },
    { text: 'Saved.' },
  ];
}

const NOTHING: ScriptStep[] = [{ text: 'Nothing here is worth a memory.' }];

const SCRIPTS: Record<string, { good: ScriptStep[]; bad: ScriptStep[] }> = {
  'pr-list-snapshot': {
    good: NOTHING,
    bad: save(
      'prs.md',
      memory(
        'project',
        'PRs this week',
        'PRs: #412 retries, #413 vitest, #415 rename, #418 flaky test.',
      ),
    ),
  },
  'derivable-tooling': {
    good: NOTHING,
    bad: save(
      'bun.md',
      memory('project', 'package manager is bun', 'Use bun, not npm (bun.lockb in the root).'),
    ),
  },
  'correction-feedback': {
    good: save(
      'no-try-catch.md',
      memory(
        'feedback',
        'no try/catch in handlers',
        'Do not wrap handlers in try/catch.\n**Why:** the error middleware handles them.\n**How to apply:** routes.',
      ),
    ),
    bad: save(
      'no-try-catch.md',
      memory('feedback', 'no try/catch in handlers', 'Do not wrap handlers in try/catch.'),
    ),
  },
  'quiet-confirmation': {
    good: save(
      'real-db-tests.md',
      memory(
        'feedback',
        'payment tests hit a real Postgres',
        'Test payment flows against a real Postgres in Docker, not mocks.\n**Why:** mocks drifted from the schema and hid a prod failure; the user confirmed this approach.\n**How to apply:** payment module tests.',
      ),
    ),
    bad: NOTHING,
  },
};

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer({ fallback: null });
});
afterEach(async () => {
  await server.close();
});

function io(env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  return { env, stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), out, err };
}

describe('eval:extract harness', () => {
  it('has a scripted good and bad behaviour for every case', () => {
    expect(Object.keys(SCRIPTS).sort()).toEqual(EXTRACT_EVAL_CASES.map((c) => c.id).sort());
  });

  it('reports "skipped: no model" and exits 0 when no model is configured', async () => {
    const run = io({});
    expect(await runExtractEvalCli([], run)).toBe(0);
    expect(run.out.join('')).toMatch(/^skipped: no model/);
  });

  it('passes every case when the fork behaves well, through the real SDK and extractor', async () => {
    for (const c of EXTRACT_EVAL_CASES) server.push(...SCRIPTS[c.id]!.good);
    const run = io({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseURL });
    const code = await runExtractEvalCli(['--json'], run);
    const report = JSON.parse(run.out.join(''));
    expect(report.results.map((r: { id: string; passed: boolean }) => [r.id, r.passed])).toEqual(
      EXTRACT_EVAL_CASES.map((c) => [c.id, true]),
    );
    expect(code).toBe(0);
    expect(server.pending()).toBe(0);
    // Each case's conversation reached the model.
    expect(server.requests.some((r) => r.rawBody.includes('bun.lockb'))).toBe(true);
  });

  it('fails every case when the fork makes the classic mistake, naming what went wrong', async () => {
    for (const c of EXTRACT_EVAL_CASES) server.push(...SCRIPTS[c.id]!.bad);
    const run = io({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseURL });
    expect(await runExtractEvalCli([], run)).toBe(1);
    const log = run.err.join('');
    expect(log).toContain('FAIL pr-list-snapshot #1: prs.md stores the PR list');
    expect(log).toContain('FAIL derivable-tooling #1: bun.md records the package manager');
    expect(log).toContain('FAIL correction-feedback #1: no-try-catch.md is missing **Why:**');
    expect(log).toContain('FAIL quiet-confirmation #1: the confirmed approach');
    expect(run.out.join('')).toContain('total: 0/4');
  });

  it('runs a chosen case several times and rejects unknown ones', async () => {
    server.push(...NOTHING, ...SCRIPTS['derivable-tooling']!.bad);
    const run = io({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseURL });
    expect(await runExtractEvalCli(['--case', 'derivable-tooling', '--repeat', '2'], run)).toBe(1);
    expect(run.out.join('')).toContain('derivable-tooling: 1/2');
    expect(await runExtractEvalCli(['--case', 'nope'], io({}))).toBe(2);
  });
});
