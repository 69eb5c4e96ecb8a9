/**
 * `npm run eval:extract [-- --repeat N] [--case id] [--json]`: scores the extraction write gate
 * against the configured model. Without one it says "skipped: no model" and exits 0, so CI can
 * run it unconditionally; the cases themselves are exercised in CI by cases.test.ts against the
 * scripted model server.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveModel } from '../../llm/resolve-model.js';
import { EXTRACT_EVAL_CASES } from './cases.js';
import { type ExtractEvalReport, runExtractEval } from './runner.js';

export interface EvalIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

function formatReport(report: ExtractEvalReport): string {
  const lines = [`model: ${report.model}`];
  for (const [id, c] of Object.entries(report.byCase)) lines.push(`${id}: ${c.passed}/${c.runs}`);
  lines.push(`total: ${report.passed}/${report.total}`);
  return `${lines.join('\n')}\n`;
}

/** Returns the exit status: 0 all passed (or skipped), 1 some case failed, 2 bad arguments. */
export async function runExtractEvalCli(argv: string[], io: EvalIo): Promise<number> {
  let values: { json?: boolean; repeat?: string; case?: string[] };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        json: { type: 'boolean' },
        repeat: { type: 'string' },
        case: { type: 'string', multiple: true },
      },
    }));
  } catch (error) {
    io.stderr(`eval:extract: ${(error as Error).message}\n`);
    return 2;
  }
  const repeat = values.repeat === undefined ? 1 : Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) {
    io.stderr('eval:extract: --repeat needs a positive integer\n');
    return 2;
  }
  const wanted = values.case ?? [];
  const unknown = wanted.filter((id) => !EXTRACT_EVAL_CASES.some((c) => c.id === id));
  if (unknown.length > 0) {
    io.stderr(
      `eval:extract: unknown case ${unknown.join(', ')}; cases: ${EXTRACT_EVAL_CASES.map((c) => c.id).join(', ')}\n`,
    );
    return 2;
  }
  const cases =
    wanted.length === 0
      ? EXTRACT_EVAL_CASES
      : EXTRACT_EVAL_CASES.filter((c) => wanted.includes(c.id));

  const resolution = resolveModel({ env: io.env });
  if (!resolution.ok) {
    if (values.json)
      io.stdout(`${JSON.stringify({ skipped: 'no model', reason: resolution.reason })}\n`);
    else io.stdout(`skipped: no model (${resolution.reason})\n`);
    return 0;
  }
  const report = await runExtractEval({
    model: resolution.model,
    cases,
    repeat,
    onResult: (r) => {
      if (!values.json)
        io.stderr(`${r.passed ? 'pass' : 'FAIL'} ${r.id} #${r.attempt}: ${r.detail}\n`);
    },
  });
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return report.passed === report.total ? 0 : 1;
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const code = await runExtractEvalCli(process.argv.slice(2), {
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  });
  process.exitCode = code;
}
