/**
 * `--agent <name>` on add, list, recall and audit: the command works on that agent's own memory
 * (its local, project and user directories) instead of the main chain, never both.
 */
import type { Command } from 'commander';
import {
  type AgentMemoryRoots,
  type AgentScope,
  agentMemoryChain,
  engramHome,
  type MemoryLayer,
  validateAgentName,
} from '../config/index.js';
import { agentWriteDir, prepareAgentMemory } from '../memdir/index.js';
import { EngramError } from '../util/errors.js';
import { type CommonOptions, environmentFor, memoryDirFor } from './common.js';
import type { CliIo } from './io.js';

export interface AgentOptions extends CommonOptions {
  agent?: string;
  scope?: string;
}

export function withAgentOption(command: Command): Command {
  return command.option(
    '--agent <name>',
    "work on this agent's own memory (local, project and user scopes), not the main memory",
  );
}

/** The roots an agent's directories hang off: `ENGRAM_HOME` and the project root. */
export function agentRootsFor(io: CliIo, options: CommonOptions): AgentMemoryRoots {
  return {
    engramHome: engramHome(environmentFor(io, options)),
    projectRoot: memoryDirFor(io, options).projectRoot,
  };
}

/**
 * The agent's chain, after its first use is prepared (seeded from a committed snapshot); a
 * snapshot that moved on is said once on stderr and changes nothing.
 */
export async function agentLayersFor(
  io: CliIo,
  options: AgentOptions & { agent: string },
): Promise<MemoryLayer[]> {
  const agent = validateAgentName(options.agent);
  const roots = agentRootsFor(io, options);
  const prepared = await prepareAgentMemory(roots, agent, Date.now());
  if (prepared.seeded.length > 0) {
    io.stderr(
      `engram: agent ${agent}: seeded ${prepared.seeded.length} memories from the committed snapshot\n`,
    );
  }
  if (prepared.action === 'prompt-update') {
    io.stderr(
      `engram: agent ${agent}: the committed snapshot is newer than this memory; run 'engram agent sync-snapshot ${agent}' to take it\n`,
    );
  }
  return agentMemoryChain(roots, agent);
}

/** `--scope` for an agent write: local (default), project or user. */
export function agentScopeOf(scope: string | undefined): AgentScope {
  const chosen = scope ?? 'local';
  if (chosen !== 'local' && chosen !== 'project' && chosen !== 'user') {
    throw new EngramError(
      'invalid_input',
      `--scope is local, project or user for an agent (got "${chosen}")`,
    );
  }
  return chosen;
}

/** The layer an agent write goes to, the local folder git-ignored first. */
export async function agentWriteLayer(
  io: CliIo,
  options: AgentOptions & { agent: string },
): Promise<MemoryLayer> {
  const agent = validateAgentName(options.agent);
  const scope = agentScopeOf(options.scope);
  const roots = agentRootsFor(io, options);
  await prepareAgentMemory(roots, agent, Date.now());
  const dir = await agentWriteDir(roots, agent, scope);
  return agentMemoryChain(roots, agent).find((l) => l.dir === dir)!;
}
