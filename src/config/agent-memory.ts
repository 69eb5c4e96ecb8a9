/**
 * Per-agent memory: a sub-agent keeps its own memories, apart from the main chain and from every
 * other agent. One agent's inference read by another as fact is memory poisoning that outlives the
 * session, so nothing is blended, in either direction. Pure: names and paths in, paths out.
 */
import { join } from 'node:path';
import { writeNameProblem } from '../confine/policy.js';
import { EngramError } from '../util/errors.js';
import type { MemoryLayer } from './memory-chain.js';

/** Where an agent's memories live: across projects, committed with the project, or this checkout only. */
export type AgentScope = 'user' | 'project' | 'local';

export const AGENT_SCOPES: readonly AgentScope[] = ['local', 'project', 'user'];

/** `<repo>/.engram/…` folders that hold agent memory and the committed starter snapshots. */
export const PROJECT_AGENT_DIR = join('.engram', 'agent-memory');
export const LOCAL_AGENT_DIR = join('.engram', 'agent-memory-local');
export const SNAPSHOT_AGENT_DIR = join('.engram', 'agent-memory-snapshots');

const MAX_AGENT_NAME_BYTES = 128;

/** Why `name` cannot name an agent, or undefined. It becomes one path segment, so it is one. */
export function agentNameProblem(name: string): string | undefined {
  if (name.includes('\0')) return 'an agent name cannot contain NUL';
  if (/[\\/]/.test(name)) return 'an agent name is one path segment: no / or \\';
  if (Buffer.byteLength(name) > MAX_AGENT_NAME_BYTES) {
    return `an agent name is at most ${MAX_AGENT_NAME_BYTES} bytes`;
  }
  return writeNameProblem(name);
}

/** `name`, or an `invalid_input` error that says why it cannot name an agent. */
export function validateAgentName(name: string): string {
  const problem = agentNameProblem(name);
  if (problem) {
    throw new EngramError(
      'invalid_input',
      `invalid agent name ${JSON.stringify(name)}: ${problem}`,
    );
  }
  return name;
}

export interface AgentMemoryRoots {
  /** `$ENGRAM_HOME`: the user scope lives under it. */
  engramHome: string;
  /** The project root (the git root, or the working directory outside a repository). */
  projectRoot: string;
}

/** The three directories of one agent. Pure. */
export function agentMemoryDirs(
  roots: AgentMemoryRoots,
  agent: string,
): Record<AgentScope, string> {
  validateAgentName(agent);
  return {
    user: join(roots.engramHome, 'agent-memory', agent),
    project: join(roots.projectRoot, PROJECT_AGENT_DIR, agent),
    local: join(roots.projectRoot, LOCAL_AGENT_DIR, agent),
  };
}

/** The committed snapshot that seeds an agent's local memory. Pure. */
export function agentSnapshotDir(roots: AgentMemoryRoots, agent: string): string {
  validateAgentName(agent);
  return join(roots.projectRoot, SNAPSHOT_AGENT_DIR, agent);
}

/** `agent:<name>/<scope>`: the layer name of one of an agent's directories. Pure. */
export function agentLayerName(agent: string, scope: AgentScope): `agent:${string}` {
  return `agent:${agent}/${scope}`;
}

/**
 * The chain an agent's turn draws on, closest to the work first: this checkout's private memory,
 * the project's committed memory, then the user's across projects. Every layer is named
 * `agent:<name>/<scope>`, so nothing downstream can mistake it for the main chain. Pure.
 */
export function agentMemoryChain(roots: AgentMemoryRoots, agent: string): MemoryLayer[] {
  const dirs = agentMemoryDirs(roots, agent);
  return AGENT_SCOPES.map((scope) => ({
    layer: agentLayerName(agent, scope),
    dir: dirs[scope],
    // An agent's directories are engram's own (the user's home, or folders it creates in the
    // project for this purpose): as trusted as the default memory directory.
    trusted: true,
    scope,
  }));
}

/**
 * The agents a prompt addresses with `@name`, in order of appearance. `@src/x.ts` and e-mail
 * addresses are not agent names; which mentions name real agents is for the caller to decide.
 * Pure.
 */
export function mentionedAgents(prompt: string): string[] {
  const names: string[] = [];
  for (const m of prompt.matchAll(/(?:^|[\s(["'])@([A-Za-z0-9][\w.:-]*)(?![\w/@])/g)) {
    const name = m[1]!.replace(/[.:]+$/, '');
    if (name && agentNameProblem(name) === undefined && !names.includes(name)) names.push(name);
  }
  return names;
}
