import { utimesSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MEMORY_TYPES } from '../memdir/types.js';

const DAY_MS = 86_400_000;

const WORDS = (
  'deploy staging production canary rollback migration database schema index query cache redis ' +
  'queue worker cron retry timeout latency budget alert pager oncall runbook dashboard metric ' +
  'trace span log logger format lint test fixture snapshot mock coverage flaky ci pipeline build ' +
  'docker image registry helm chart terraform module region bucket storage backup restore secret ' +
  'token auth session cookie oauth login permission role admin billing invoice payment refund ' +
  'webhook api endpoint schema version release changelog tag branch merge review commit hook ' +
  'config env flag feature toggle experiment rollout mobile web android ios desktop cli sdk ' +
  'client server proxy gateway dns certificate tls ingress load balancer autoscale memory cpu ' +
  'profile benchmark regression incident postmortem customer ticket support escalation sla ' +
  'typescript python rust golang java kotlin swift react vue svelte node bun deno vite webpack ' +
  'eslint biome prettier vitest jest playwright cypress storybook tailwind css html graphql rest'
).split(' ');

/** Small deterministic PRNG so every run generates the same directory. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GeneratedMemory {
  file: string;
  type: (typeof MEMORY_TYPES)[number];
  description: string;
  body: string;
  mtimeMs: number;
}

/** `count` memories with realistic sizes: one-line descriptions, bodies of 3–30 lines. Pure. */
export function generateMemories(count: number, nowMs: number, seed = 42): GeneratedMemory[] {
  const rand = mulberry32(seed);
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const words = (n: number) => Array.from({ length: n }, word).join(' ');
  return Array.from({ length: count }, (_, i) => {
    const lines = 3 + Math.floor(rand() * 28);
    const body = Array.from({ length: lines }, () => `${words(6 + Math.floor(rand() * 10))}.`).join(
      '\n',
    );
    return {
      file: `memory-${String(i).padStart(5, '0')}.md`,
      type: MEMORY_TYPES[i % MEMORY_TYPES.length]!,
      // About one memory in a hundred is about kubelet evictions: a topic a query can single out.
      description: `${words(8 + Math.floor(rand() * 7))}${i % 97 === 3 ? ' kubelet eviction' : ''}`,
      body: `${body}\n**Why:** ${words(8)}.\n**How to apply:** ${words(8)}.\n`,
      mtimeMs: nowMs - Math.floor(rand() * 180 * DAY_MS),
    };
  });
}

export function memoryFileText(m: GeneratedMemory): string {
  return `---\nname: ${m.file.replace(/\.md$/, '')}\ndescription: ${m.description}\ntype: ${m.type}\n---\n${m.body}`;
}

/** Write the memories as files (mtimes set) plus the same texts as a server-memory graph. */
export async function writeBenchDirectory(dir: string, memories: readonly GeneratedMemory[]) {
  const memoryDir = join(dir, 'memory');
  await mkdir(memoryDir, { recursive: true });
  // Synchronous on purpose: setting up 10,000 small files is several times faster this way, and
  // nothing else runs while the bench prepares.
  for (const m of memories) {
    const path = join(memoryDir, m.file);
    writeFileSync(path, memoryFileText(m));
    utimesSync(path, m.mtimeMs / 1000, m.mtimeMs / 1000);
  }
  // One entity per memory, observations = description and body: the same text, in its format.
  const graphPath = join(dir, 'graph.jsonl');
  const lines = memories.map((m) =>
    JSON.stringify({
      type: 'entity',
      name: m.file,
      entityType: m.type,
      observations: [m.description, m.body],
    }),
  );
  await writeFile(graphPath, lines.join('\n'));
  return { memoryDir, graphPath };
}
