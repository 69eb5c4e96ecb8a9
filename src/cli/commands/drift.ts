import { join } from 'node:path';
import type { Command } from 'commander';
import type { MemoryLayer } from '../../config/index.js';
import {
  createClaimVerifier,
  type MemoryVerification,
  markClaimRefresh,
  quickProjectState,
} from '../../drift/index.js';
import {
  checkMemoryFileName,
  memoryFileName,
  readMemory,
  resolveMemoryRef,
  revokeMemory,
  scanMemories,
} from '../../memdir/index.js';
import { EngramError, isEngramError } from '../../util/errors.js';
import {
  type CommonOptions,
  environmentFor,
  findInChain,
  memoryChainFor,
  printJson,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

/** A refresh in the background has time; a person waiting at a terminal gets an answer anyway. */
const VERIFY_COMMAND_BUDGET_MS = 30_000;

function verificationJson(v: MemoryVerification) {
  return {
    file: v.file,
    total: v.total,
    checked: v.checked,
    failed: v.failed,
    checks: v.checks.map((c) => ({
      kind: c.claim.kind,
      text: c.claim.text,
      status: c.status,
      ...(c.detail ? { detail: c.detail } : {}),
    })),
  };
}

interface LayerTargets {
  layer: MemoryLayer;
  docs: Array<{ file: string; content: string }>;
}

interface LayerVerification extends LayerTargets {
  results: Map<string, MemoryVerification>;
}

/**
 * What `verify` checks, by layer in chain order: the memories named (each found as `show` finds
 * it, the project layer first), else every active memory of every layer.
 */
async function verifyTargets(
  chain: readonly MemoryLayer[],
  files: string[],
): Promise<LayerTargets[]> {
  const groups = chain.map((layer) => ({ layer, docs: [] as LayerTargets['docs'] }));
  const groupOf = (layer: MemoryLayer) => groups.find((g) => g.layer === layer)!;
  if (files.length > 0) {
    for (const ref of files) {
      const found = await findInChain(chain, ref);
      const docs = groupOf(found.layer).docs;
      if (!docs.some((d) => d.file === found.file))
        docs.push({ file: found.file, content: found.doc.content });
    }
  } else {
    for (const group of groups) {
      const { memories } = await scanMemories(group.layer.dir, { cap: Number.POSITIVE_INFINITY });
      for (const m of memories.filter((m) => m.status === 'active'))
        group.docs.push({
          file: m.file,
          content: (await readMemory(group.layer.dir, m.file)).content,
        });
    }
  }
  return groups.filter((g) => g.docs.length > 0);
}

/**
 * The JSON a project-only run always printed; a memory of another layer adds `layer`, and an
 * unverified one is named by its path (which `show` and `revoke` take, naming the layer).
 */
function verifyJson(checked: readonly LayerVerification[]) {
  const other = (g: LayerVerification) => g.layer.layer !== 'project';
  return {
    memories: checked.flatMap((g) =>
      g.docs
        .map((d) => g.results.get(d.file))
        .filter((v) => v !== undefined)
        .map((v) => ({ ...verificationJson(v), ...(other(g) ? { layer: g.layer.layer } : {}) })),
    ),
    unverified: checked.flatMap((g) =>
      g.docs
        .filter((d) => !g.results.has(d.file))
        .map((d) => (other(g) ? join(g.layer.dir, d.file) : d.file)),
    ),
  };
}

function printVerifications(io: CliIo, checked: readonly LayerVerification[]): void {
  for (const g of checked) {
    const where = g.layer.layer === 'project' ? '' : ` (${g.layer.layer} layer)`;
    for (const d of g.docs) {
      const v = g.results.get(d.file);
      if (v === undefined) {
        io.stdout(`${d.file}${where}: not verified (budget spent or project unreadable)\n`);
        continue;
      }
      io.stdout(
        `${v.file}${where}: ${v.checked} of ${v.total} claims checked, ${v.failed} failed\n`,
      );
      for (const c of v.checks) if (c.status === 'fails') io.stdout(`  - ${c.detail}\n`);
    }
  }
}

export function registerDriftCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('verify'))
    .description(
      "check memories' claims (files, file:line, identifiers) against the project and cache the results",
    )
    .argument('[files...]', 'memory files to check (default: every active memory of every layer)')
    .option('--budget-ms <ms>', 'give up after this long', String(VERIFY_COMMAND_BUDGET_MS))
    .option('--quiet', 'print nothing (for background refreshes)')
    .action(
      async (files: string[], opts: CommonOptions & { budgetMs: string; quiet?: boolean }) => {
        const started = performance.now();
        const budgetMs = Number(opts.budgetMs);
        if (!Number.isFinite(budgetMs) || budgetMs <= 0)
          throw new EngramError('invalid_input', '--budget-ms needs a positive number');
        const chain = memoryChainFor(io, opts);
        const dir = chain[0]!.dir;
        const groups = await verifyTargets(chain, files);
        const projectDir = environmentFor(io, opts).cwd;
        // The quick state is read before the checks: a change made while they run is not marked
        // as checked.
        const quick = files.length === 0 ? quickProjectState(projectDir, dir) : undefined;
        const checked: LayerVerification[] = [];
        for (const group of groups) {
          // One budget for the run: a layer gets what the ones before it left.
          const left = budgetMs - (performance.now() - started);
          if (left <= 0) {
            checked.push({ ...group, results: new Map() });
            continue;
          }
          // Every layer's verdicts go to the project's cache, where recall looks them up: a claim
          // is about this project, whichever layer the memory came from.
          const verifier = createClaimVerifier({ projectDir, memoryDir: dir, budgetMs: left });
          const results = await verifier
            .verifyMemories(group.docs)
            .finally(() => verifier.dispose());
          checked.push({ ...group, results });
        }
        const complete = checked.every((g) => g.results.size === g.docs.length);
        if (quick !== undefined && complete)
          await markClaimRefresh(dir, quick).catch(() => undefined);
        if (opts.quiet) return;
        if (opts.json) printJson(io, verifyJson(checked));
        else printVerifications(io, checked);
      },
    );

  withCommonOptions(program.command('revoke'))
    .description(
      'retire a memory that turned out wrong: it stays on disk marked revoked, is never recalled again, and loses its index line',
    )
    .argument('<file>', 'memory file (no-try-catch.md), its stem, or its name')
    .requiredOption('--reason <text>', 'why it is wrong (one line, kept in the file)')
    .option('--superseded-by <file>', 'the memory that replaces it')
    .action(
      async (file: string, opts: CommonOptions & { reason: string; supersededBy?: string }) => {
        // Found as `show` finds it: the project's memory first, then the user layer's (a wrong
        // user fact is recalled in every project); the replacement is looked up in the same layer.
        const { layer, file: target, doc } = await findInChain(memoryChainFor(io, opts), file);
        const dir = layer.dir;
        let supersededBy: string | undefined;
        if (opts.supersededBy !== undefined) {
          supersededBy = await resolveMemoryRef(dir, opts.supersededBy).catch((error: unknown) => {
            // Naming a replacement that does not exist yet is allowed, but said.
            if (!isEngramError(error, 'not_found')) throw error;
            // A name, not a file, is recorded as the file `engram add --name` will give it.
            const given = opts.supersededBy!.trim();
            const name = given.endsWith('.md') ? given : memoryFileName(given);
            const problem = checkMemoryFileName(name);
            if (problem) throw new EngramError('invalid_input', problem);
            io.stderr(`engram: warning: ${name} does not exist (yet); recorded as given.\n`);
            return name;
          });
          if (supersededBy === target)
            throw new EngramError('invalid_input', 'A memory cannot supersede itself.');
        }
        if (doc.header.status === 'revoked') {
          throw new EngramError('invalid_input', `${target} is already revoked.`);
        }
        await revokeMemory(dir, target, {
          reason: opts.reason,
          ...(supersededBy !== undefined ? { supersededBy } : {}),
        });
        if (opts.json)
          printJson(io, {
            file: target,
            status: 'revoked',
            reason: opts.reason.replace(/\s+/g, ' ').trim(),
            supersededBy: supersededBy ?? null,
          });
        else
          io.stdout(
            `Revoked ${target}${layer.layer === 'project' ? '' : ` in the ${layer.layer} layer (${dir})`}${supersededBy ? ` (superseded by ${supersededBy})` : ''}: it stays on disk, is never recalled, and its index line is gone.\n`,
          );
      },
    );
}
