import type { Command } from 'commander';
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
  memoryDirFor,
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

export function registerDriftCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('verify'))
    .description(
      "check memories' claims (files, file:line, identifiers) against the project and cache the results",
    )
    .argument('[files...]', 'memory files to check (default: every active memory)')
    .option('--budget-ms <ms>', 'give up after this long', String(VERIFY_COMMAND_BUDGET_MS))
    .option('--quiet', 'print nothing (for background refreshes)')
    .action(
      async (files: string[], opts: CommonOptions & { budgetMs: string; quiet?: boolean }) => {
        const { path: dir } = memoryDirFor(io, opts);
        const budgetMs = Number(opts.budgetMs);
        if (!Number.isFinite(budgetMs) || budgetMs <= 0)
          throw new EngramError('invalid_input', '--budget-ms needs a positive number');
        const targets =
          files.length > 0
            ? await Promise.all(files.map((f) => resolveMemoryRef(dir, f)))
            : (await scanMemories(dir, { cap: Number.POSITIVE_INFINITY })).memories
                .filter((m) => m.status === 'active')
                .map((m) => m.file);
        const docs = await Promise.all(
          targets.map(async (file) => ({ file, content: (await readMemory(dir, file)).content })),
        );
        const verifier = createClaimVerifier({
          projectDir: environmentFor(io, opts).cwd,
          memoryDir: dir,
          budgetMs,
        });
        // The quick state is read before the checks: a change made while they run is not marked
        // as checked.
        const projectDir = environmentFor(io, opts).cwd;
        const quick = files.length === 0 ? quickProjectState(projectDir, dir) : undefined;
        const results = await verifier.verifyMemories(docs).finally(() => verifier.dispose());
        if (quick !== undefined && results.size === docs.length) {
          await markClaimRefresh(dir, quick).catch(() => undefined);
        }
        const list = docs.map((d) => results.get(d.file));
        if (opts.quiet) return;
        if (opts.json) {
          printJson(io, {
            memories: list.filter((v) => v !== undefined).map(verificationJson),
            unverified: docs.filter((d) => !results.has(d.file)).map((d) => d.file),
          });
          return;
        }
        for (const [i, v] of list.entries()) {
          if (v === undefined) {
            io.stdout(`${docs[i]!.file}: not verified (budget spent or project unreadable)\n`);
            continue;
          }
          io.stdout(`${v.file}: ${v.checked} of ${v.total} claims checked, ${v.failed} failed\n`);
          for (const c of v.checks) if (c.status === 'fails') io.stdout(`  - ${c.detail}\n`);
        }
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
