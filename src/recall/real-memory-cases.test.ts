/**
 * Labeled cases in the shape of a real coding agent's memory directory: what the offline ranker
 * must find, and everyday questions that must get nothing. Written by hand for this guard (not
 * taken from LoCoMo), so a change tuned on the benchmark that costs real recall shows up here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryType } from '../memdir/types.js';
import { NOW, type Seed, seedMemories, tempMemoryDir } from './__fixtures__/memdir.js';
import { recall } from './recall.js';

const memory = (file: string, type: MemoryType, description: string): Seed => ({
  file,
  type,
  description,
  ageDays: 3,
});

const MEMORIES: Seed[] = [
  memory(
    'user-role.md',
    'user',
    'User is a backend engineer, new to React; explain frontend ideas through backend analogies',
  ),
  memory('terse-answers.md', 'feedback', 'Keep answers short: no trailing summary of the diff'),
  memory('bun-test.md', 'feedback', 'Run the test suite with bun test, never jest'),
  memory('no-mock-db.md', 'feedback', 'Integration tests must hit a real Postgres, not mocks'),
  memory(
    'merge-freeze.md',
    'project',
    'Merge freeze for non-critical changes starts 2026-03-05 for the mobile release cut',
  ),
  memory(
    'auth-rewrite.md',
    'project',
    'The auth middleware rewrite is driven by legal compliance on session token storage',
  ),
  memory('linear-ingest.md', 'reference', 'Pipeline bugs are tracked in the Linear project INGEST'),
  memory(
    'grafana-latency.md',
    'reference',
    'Grafana dashboard grafana.internal/d/api-latency is what on-call watches',
  ),
  memory('pnpm-only.md', 'feedback', 'Install packages with pnpm; npm install breaks the lockfile'),
  memory(
    'release-steps.md',
    'project',
    'Release: bump the version, update the changelog, tag, then publish to npm from CI',
  ),
  memory(
    'docker-arm.md',
    'project',
    'Docker images must be built for both amd64 and arm64 with buildx',
  ),
  memory(
    'flaky-e2e.md',
    'project',
    'The checkout end-to-end test is flaky on CI because of a race in the payment mock',
  ),
  memory('gofmt.md', 'feedback', 'Go code uses gofmt defaults; never reformat vendored files'),
  memory(
    'oncall.md',
    'user',
    'User is on call every other week and wants incident summaries as bullet points',
  ),
  memory('cjk-docs.md', 'project', '文档必须同时提供中文和英文版本'),
  memory(
    'migrations.md',
    'project',
    'Database migrations run with sqitch; never edit a migration that was deployed',
  ),
];

/** Query → the memory that must come first. */
const FIRST: [string, string][] = [
  ['how do I run the tests for this package', 'bun-test.md'],
  ['write an integration test for the orders repository', 'no-mock-db.md'],
  ['can you install lodash for me', 'pnpm-only.md'],
  ['the docker image fails to start on the staging cluster', 'docker-arm.md'],
  ['the checkout e2e test failed again in CI', 'flaky-e2e.md'],
  ['where should I file this ingest pipeline bug', 'linear-ingest.md'],
  ['I changed the request handler, how do I check latency', 'grafana-latency.md'],
  ['explain how React hooks work', 'user-role.md'],
  ['why are we rewriting the auth middleware', 'auth-rewrite.md'],
  ['can we merge this refactor next week before the mobile release', 'merge-freeze.md'],
  ["summarize last night's incident", 'oncall.md'],
  ['更新一下文档', 'cjk-docs.md'],
];

/** Query → a memory that must be among the (at most five) selected. */
const SELECTED: [string, string][] = [
  ['add a new column to the users table', 'migrations.md'],
  ['cut a new release of the library', 'release-steps.md'],
  ['reformat the go files', 'gofmt.md'],
];

const UNRELATED = [
  'what is the capital of Australia',
  'write a haiku about the sea',
  'how many ounces are in a pound',
  'recommend a good sci-fi novel',
  'what rhymes with orange',
  'translate good morning into Spanish',
  'who painted the Mona Lisa',
  '今天天气怎么样',
  'how tall is mount everest',
  'give me a recipe for pancakes',
  'what year did the berlin wall fall',
  'tell me a joke about cats',
];

async function selectedFor(dir: string, query: string): Promise<string[]> {
  return (await recall({ dir, query, now: NOW })).selected.map((m) => m.file);
}

describe('offline recall on a labeled coding-agent directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempMemoryDir();
    await seedMemories(dir, MEMORIES);
  });

  it('puts the memory that answers the message first', async () => {
    for (const [query, file] of FIRST) {
      expect({ query, first: (await selectedFor(dir, query))[0] }).toEqual({ query, first: file });
    }
    for (const [query, file] of SELECTED) {
      expect({ query, selected: await selectedFor(dir, query) }).toEqual({
        query,
        selected: expect.arrayContaining([file]),
      });
    }
  });

  it('selects nothing for everyday questions unrelated to the project', async () => {
    for (const query of UNRELATED) {
      expect({ query, selected: await selectedFor(dir, query) }).toEqual({ query, selected: [] });
    }
  });
});
