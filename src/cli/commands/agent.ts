import type { Command } from 'commander';
import {
  AGENT_SCOPES,
  type AgentScope,
  agentMemoryDirs,
  agentSnapshotDir,
  validateAgentName,
} from '../../config/index.js';
import {
  checkAgentSnapshot,
  knownAgentNames,
  scanMemories,
  syncAgentSnapshot,
} from '../../memdir/index.js';
import { EngramError } from '../../util/errors.js';
import { agentRootsFor, agentScopeOf } from '../agent-options.js';
import { type CommonOptions, printJson, withCommonOptions } from '../common.js';
import type { CliIo } from '../io.js';

/** `engram agent list|path|sync-snapshot`: per-agent memory, isolated from the main chain. */
export function registerAgentCommands(program: Command, io: CliIo): void {
  const agent = program
    .command('agent')
    .description("per-agent memory: each sub-agent's own memory, never blended with the main one");

  withCommonOptions(agent.command('list'))
    .description(
      'the agents with memory or a committed snapshot, their folders and snapshot status',
    )
    .action(async (opts: CommonOptions) => {
      const roots = agentRootsFor(io, opts);
      const agents = await Promise.all(
        knownAgentNames(roots).map(async (name) => {
          const dirs = agentMemoryDirs(roots, name);
          const counts = await Promise.all(
            AGENT_SCOPES.map(async (scope) => {
              const scan = await scanMemories(dirs[scope], { cap: Number.POSITIVE_INFINITY });
              return [scope, scan.memories.filter((m) => m.status === 'active').length] as const;
            }),
          );
          const snapshot = await checkAgentSnapshot(roots, name);
          return {
            agent: name,
            dirs,
            memories: Object.fromEntries(counts) as Record<AgentScope, number>,
            snapshot: snapshot.action,
          };
        }),
      );
      if (opts.json) {
        printJson(io, { agents });
        return;
      }
      if (agents.length === 0) {
        io.stdout('No agent has memory here yet (engram add --agent <name> … starts one).\n');
        return;
      }
      for (const a of agents) {
        const counts = AGENT_SCOPES.map((s) => `${s} ${a.memories[s]}`).join(', ');
        const snapshot = a.snapshot === 'none' ? '' : `; snapshot: ${a.snapshot}`;
        io.stdout(`${a.agent}: ${counts}${snapshot}\n`);
      }
    });

  withCommonOptions(agent.command('path <agent>'))
    .description("print an agent's memory folders (or one of them with --scope)")
    .option('--scope <scope>', 'local, project or user')
    .action((name: string, opts: CommonOptions & { scope?: string }) => {
      validateAgentName(name);
      const roots = agentRootsFor(io, opts);
      const dirs = agentMemoryDirs(roots, name);
      const snapshot = agentSnapshotDir(roots, name);
      if (opts.scope !== undefined) {
        const dir = dirs[agentScopeOf(opts.scope)];
        if (opts.json) printJson(io, { agent: name, scope: opts.scope, path: dir });
        else io.stdout(`${dir}\n`);
        return;
      }
      if (opts.json) printJson(io, { agent: name, ...dirs, snapshot });
      else
        io.stdout(
          `${AGENT_SCOPES.map((s) => `${s}: ${dirs[s]}`).join('\n')}\nsnapshot: ${snapshot}\n`,
        );
    });

  withCommonOptions(agent.command('sync-snapshot <agent>'))
    .description(
      "take the committed snapshot into the agent's local memory: its files replace same-named ones, local-only memories stay",
    )
    .action(async (name: string, opts: CommonOptions) => {
      validateAgentName(name);
      const roots = agentRootsFor(io, opts);
      const result = await syncAgentSnapshot(roots, name, Date.now());
      // Nothing to take is a name that found nothing (a typo, a snapshot not committed yet).
      if (result.snapshotVersion === undefined) {
        throw new EngramError(
          'not_found',
          `No committed snapshot for agent ${name} (looked in ${result.from}); \`engram agent list\` shows the agents with one.`,
        );
      }
      if (opts.json) {
        printJson(io, { agent: name, ...result });
        return;
      }
      io.stdout(
        `Synced agent ${name} from its snapshot: ${result.imported.length} memories taken, ${result.skipped.length} unchanged or refused.\n`,
      );
      for (const s of result.skipped.filter((x) => x.reason !== 'already imported'))
        io.stdout(`  skipped ${s.file}: ${s.reason}\n`);
    });
}
