import { parseArgs } from 'node:util';

/** The benchmark's options, read strictly: a typo or a bad value is an error, not the defaults. */
export interface BenchArgs {
  sizes: number[];
  runs: number | undefined;
  json: boolean;
  help: boolean;
}

export const BENCH_USAGE = `Usage: node dist/bench/main.js [--sizes 200,2000,10000] [--runs N] [--json]

  --sizes <list>  memory counts to measure, comma-separated (default 200,2000,10000)
  --runs <n>      in-process samples per size (default: by size)
  --json          print the rows as JSON instead of the tables
  -h, --help      print this and exit
`;

/** Pure: argv (without node and the script) to options; throws a message naming the bad input. */
export function parseBenchArgs(
  argv: readonly string[],
  defaultSizes: readonly number[],
): BenchArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      sizes: { type: 'string' },
      runs: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const sizes =
    values.sizes === undefined ? [...defaultSizes] : values.sizes.split(',').map((s) => s.trim());
  const numbers = sizes.map(Number);
  const bad = sizes.filter((_, i) => !Number.isInteger(numbers[i]) || numbers[i]! <= 0);
  if (bad.length > 0 || numbers.length === 0) {
    throw new Error(
      `--sizes takes positive whole numbers, comma-separated (got "${values.sizes}")`,
    );
  }
  let runs: number | undefined;
  if (values.runs !== undefined) {
    runs = Number(values.runs);
    if (!Number.isInteger(runs) || runs < 1) {
      throw new Error(`--runs takes a whole number of at least 1 (got "${values.runs}")`);
    }
  }
  return { sizes: numbers, runs, json: values.json, help: values.help };
}
