import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { MemoryLayer } from '../../config/index.js';
import {
  auditMemoryDir,
  checkMemoryInput,
  formatManifestLine,
  INDEX_FILE,
  loadIndex,
  MEMORY_TYPES,
  type MemoryHeader,
  type MemoryType,
  readIndexRaw,
  rebuildIndexText,
  removeMemory,
  resolveMemoryRef,
  type ScanResult,
  saveMemory,
  scanMemories,
  updateIndex,
} from '../../memdir/index.js';
import { describeUninjectable, uninjectableBytes } from '../../memdir/injectable.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { EngramError, errnoCode, isEngramError } from '../../util/errors.js';
import { DEFAULT_MAX_READ_BYTES, openRegularFile } from '../../util/regular-file.js';
import {
  type AgentOptions,
  agentLayersFor,
  agentWriteLayer,
  withAgentOption,
} from '../agent-options.js';
import {
  CliExit,
  type CommonOptions,
  findInChain,
  memoryChainFor,
  memoryDirFor,
  memoryRefIn,
  printJson,
  scopeLayer,
  withCommonOptions,
} from '../common.js';
import type { CliIo } from '../io.js';

function headerJson(m: MemoryHeader) {
  return {
    file: m.file,
    path: m.path,
    type: m.type,
    name: m.name ?? null,
    description: m.description ?? null,
    mtime: new Date(m.mtimeMs).toISOString(),
    status: m.status,
  };
}

/** What `list` says on stderr when it lists nothing: where it looked, and any revoked it left out. */
function nothingListed(
  layers: readonly MemoryLayer[],
  scans: readonly ScanResult[],
  all: boolean | undefined,
): string {
  const where = layers.map((l) => `${l.dir} (${l.layer} layer)`).join(', ');
  const revoked = scans.reduce(
    (n, s) => n + s.memories.filter((m) => m.status !== 'active').length,
    0,
  );
  if (all || revoked === 0) return `no memories in ${where}.`;
  return `no active memories in ${where}; ${revoked} revoked (\`engram list --all\` shows them).`;
}

/**
 * `--body-file`: a regular file of UTF-8 text, saved as it is. A FIFO or a folder is refused at
 * once (never waited on), and bytes that are not UTF-8 are refused rather than saved as U+FFFD:
 * the memory would silently say something else than the file. A Windows BOM is dropped.
 */
async function readBodyFile(path: string): Promise<string> {
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      throw new EngramError('not_found', `--body-file ${path} does not exist.`, { cause: error });
    }
    if (isEngramError(error))
      throw new EngramError('invalid_input', `--body-file: ${error.message}`);
    throw error;
  }
  const { handle, info } = opened;
  try {
    if (info.size > DEFAULT_MAX_READ_BYTES) {
      throw new EngramError(
        'invalid_input',
        `--body-file ${path} is ${info.size} bytes, over the ${DEFAULT_MAX_READ_BYTES}-byte read limit; a memory is one fact.`,
      );
    }
    const bytes = await handle.readFile();
    const problem = uninjectableBytes(bytes);
    if (problem) {
      throw new EngramError(
        'invalid_input',
        `--body-file ${path} cannot be saved as a memory: ${describeUninjectable(problem)}. Save it as UTF-8 text.`,
      );
    }
    return bytes.toString('utf8').replace(/^\uFEFF/, '');
  } finally {
    await handle.close().catch(() => {});
  }
}

export function registerMemoryCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('init'))
    .description('create the memory directory and an empty MEMORY.md')
    .action(async (opts: CommonOptions) => {
      const { path } = memoryDirFor(io, opts);
      await mkdir(path, { recursive: true, mode: 0o700 });
      const created = (await readIndexRaw(path)) === undefined;
      if (created) await writeFileAtomic(join(path, INDEX_FILE), '', { mode: 0o600 });
      if (opts.json) printJson(io, { path, created });
      else io.stdout(`${created ? 'Initialised' : 'Already initialised:'} ${path}\n`);
    });

  withCommonOptions(program.command('path'))
    .description('print the memory directory and which source chose it')
    .action((opts: CommonOptions) => {
      const r = memoryDirFor(io, opts);
      if (opts.json)
        printJson(io, {
          path: r.path,
          source: r.source,
          writeWithoutPrompt: r.writeWithoutPrompt,
        });
      else
        io.stdout(
          `${r.path}\nsource: ${r.source} (${r.origin})\nwrite without prompt: ${r.writeWithoutPrompt ? 'yes' : 'no'}\n${r.ignored
            .map((i) => `ignored: "${i.key}" in ${i.path}: ${i.reason}\n`)
            .join('')}`,
        );
    });

  withAgentOption(withCommonOptions(program.command('add')))
    .description('save a memory (topic file + index line)')
    .requiredOption('--type <type>', `one of ${MEMORY_TYPES.join(', ')}`)
    .requiredOption('--name <name>', 'short, specific title')
    .option('--description <line>', 'one line that says what the memory is about (required)')
    .option('--body <text>', 'the memory text')
    .option('--body-file <file>', 'read the memory text from a file')
    .option('--file <name.md>', 'file name inside the memory directory (default: from the name)')
    .option(
      '--scope <scope>',
      'project (this repository, the default) or user (facts about you that hold in every project); with --agent: local (the default), project or user',
    )
    .action(async (opts: CommonOptions & Record<string, string | undefined>) => {
      const agent = opts.agent;
      const layer =
        agent !== undefined ? await agentWriteLayer(io, { ...opts, agent }) : scopeLayer(io, opts);
      const dir = layer.dir;
      if (opts.body !== undefined && opts.bodyFile !== undefined) {
        throw new EngramError(
          'invalid_input',
          'Give the memory text once: --body or --body-file (or stdin), not both.',
        );
      }
      let body = opts.body;
      if (body === undefined && opts.bodyFile)
        body = await readBodyFile(resolve(io.cwd, opts.bodyFile));
      if (body === undefined && !io.stdinIsTty) body = await io.readStdin();
      const input = {
        type: opts.type as MemoryType,
        name: opts.name ?? '',
        description: opts.description ?? '',
        body: body ?? '',
        ...(opts.file ? { file: opts.file } : {}),
      };
      const check = checkMemoryInput(input);
      if (check.errors.length > 0) throw new EngramError('invalid_input', check.errors.join('\n'));
      const result = await saveMemory(dir, input);
      for (const w of result.warnings) io.stderr(`engram: warning: ${w}\n`);
      if (opts.json) printJson(io, { ...result, layer: layer.layer, dir });
      else
        io.stdout(
          `${result.created ? 'Saved' : 'Updated'} ${result.file} in the ${layer.layer} layer (${dir})\n${result.indexLine}\n`,
        );
    });

  withAgentOption(withCommonOptions(program.command('list')))
    .description('list memories newest first: - [type] file (ISO mtime): description')
    .option('--all', 'include revoked memories')
    .action(async (opts: AgentOptions & { all?: boolean }) => {
      const agent = opts.agent;
      const layers =
        agent !== undefined
          ? await agentLayersFor(io, { ...opts, agent })
          : memoryChainFor(io, opts);
      const scans = await Promise.all(layers.map((l) => scanMemories(l.dir)));
      const shown = scans.flatMap((scan, i) =>
        (opts.all ? scan.memories : scan.memories.filter((m) => m.status === 'active')).map(
          (m) => ({ ...m, layer: layers[i]!.layer }),
        ),
      );
      const total = scans.reduce((n, s) => n + s.total, 0);
      const dropped = scans.reduce((n, s) => n + s.dropped, 0);
      const cap = scans[0]!.cap;
      if (opts.json) {
        printJson(io, {
          memories: shown.map((m) => ({ ...headerJson(m), layer: m.layer })),
          total,
          dropped,
          cap,
          layers: layers.map((l, i) => ({ layer: l.layer, dir: l.dir, total: scans[i]!.total })),
        });
        return;
      }
      // Project lines look as they always did; a memory from another layer says which.
      io.stdout(
        shown
          .map(
            (m) =>
              `${formatManifestLine(m)}${m.layer === 'project' ? '' : ` (${m.layer} layer)`}\n`,
          )
          .join(''),
      );
      if (dropped > 0) {
        io.stderr(`engram: ${dropped} older memories not listed (scan cap ${cap} of ${total}).\n`);
      }
      // An empty stdout alone reads like a failure or a wrong directory: say where we looked.
      if (shown.length === 0) io.stderr(`engram: ${nothingListed(layers, scans, opts.all)}\n`);
    });

  withCommonOptions(program.command('show'))
    .description('print one memory file')
    .argument('<file>', 'memory file (no-try-catch.md), its stem, or its name')
    .action(async (file: string, opts: CommonOptions) => {
      // The chain in order: the project's memory first, then the user layer's.
      const found = await findInChain(memoryChainFor(io, opts), file);
      const { doc } = found;
      if (opts.json)
        printJson(io, {
          ...headerJson(doc.header),
          layer: found.layer.layer,
          frontmatter: doc.header.frontmatter,
          body: doc.body,
        });
      else io.stdout(doc.content.endsWith('\n') ? doc.content : `${doc.content}\n`);
    });

  withCommonOptions(program.command('rm'))
    .description(
      'delete a memory file and its index line for good (to retire a memory that turned out wrong, use `engram revoke`)',
    )
    .argument('<file>', 'memory file (no-try-catch.md), its stem, or its name')
    .option('--scope <scope>', 'the layer to delete from: project (default) or user', 'project')
    .action(async (file: string, opts: CommonOptions & { scope?: string }) => {
      const dir = scopeLayer(io, opts).dir;
      const ref = memoryRefIn(dir, file);
      const target = await resolveMemoryRef(dir, ref).catch(() =>
        ref.endsWith('.md') ? ref : `${ref}.md`,
      );
      const { removedFile, removedIndexLine } = await removeMemory(dir, target);
      if (!removedFile && !removedIndexLine) {
        const elsewhere = await findInChain(memoryChainFor(io, opts), file).catch(() => undefined);
        const other = elsewhere?.layer.layer;
        const hint =
          elsewhere && elsewhere.layer.dir !== dir && (other === 'user' || other === 'project')
            ? ` It is in the ${other} layer: engram rm ${elsewhere.file} --scope ${other}.`
            : '';
        throw new EngramError(
          'not_found',
          `No memory ${target} in ${dir} (and no index line for it).${hint}`,
        );
      }
      if (!removedFile) io.stderr(`engram: ${target} did not exist; removed its index line.\n`);
      if (opts.json) printJson(io, { file: target, removedFile, removedIndexLine });
      else io.stdout(`Removed ${target}: the file and its index line are deleted.\n`);
      // A deleted memory can be learned again from the next transcript; a revoked one cannot.
      io.stderr(
        `engram: ${target} is deleted, not revoked. To retire a memory that turned out wrong, use \`engram revoke ${target} --reason "…"\` instead: it stays on disk marked revoked, so it is never recalled or learned again.\n`,
      );
    });

  withCommonOptions(program.command('index'))
    .description('show, check or rebuild MEMORY.md')
    .option('--show', 'print the index exactly as an agent receives it (capped, with the warning)')
    .option('--check', 'check the index against the files (exit 1 on problems)')
    .option('--rebuild', 'rewrite the index from the memory files, keeping existing lines')
    .action(
      async (opts: CommonOptions & { show?: boolean; check?: boolean; rebuild?: boolean }) => {
        const { path: dir } = memoryDirFor(io, opts);
        const chosen = [opts.show, opts.check, opts.rebuild].filter(Boolean).length;
        if (chosen > 1)
          throw new EngramError('invalid_input', 'Choose one of --show, --check, --rebuild.');
        if (opts.rebuild) {
          const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
          await mkdir(dir, { recursive: true, mode: 0o700 });
          let result = rebuildIndexText('', scan.memories);
          await updateIndex(dir, (current) => {
            result = rebuildIndexText(current, scan.memories);
            return result.text;
          });
          if (opts.json)
            printJson(io, { added: result.added, removed: result.removed, lines: result.lines });
          else
            io.stdout(
              `Rebuilt ${INDEX_FILE}: ${result.added.length} added, ${result.removed.length} removed.\n`,
            );
          return;
        }
        if (opts.check) {
          const report = await auditMemoryDir(dir);
          const problems = report.problems.filter((p) =>
            [
              'orphan',
              'dangling_pointer',
              'revoked_in_index',
              'index_over_lines',
              'index_over_bytes',
              // The index's own lines: what `--rebuild` repairs, and what makes its counts unsure.
              'duplicate_index_line',
              'unparseable_index_line',
              'orphan_count_unreliable',
            ].includes(p.kind),
          );
          if (opts.json) printJson(io, { ok: problems.length === 0, problems });
          else
            io.stdout(
              problems.length === 0
                ? `${INDEX_FILE} is consistent.\n`
                : problems.map((p) => `${p.kind}: ${p.message}\n`).join(''),
            );
          if (problems.length > 0) throw new CliExit(1);
          return;
        }
        const index = await loadIndex(dir);
        if (opts.json) {
          printJson(io, {
            path: index.path,
            exists: index.exists,
            content: index.content,
            truncated: index.truncated,
            limitsHit: index.limitsHit,
            totalLines: index.totalLines,
            totalBytes: index.totalBytes,
            keptLines: index.keptLines,
            keptBytes: index.keptBytes,
          });
        } else io.stdout(index.content);
      },
    );

  withAgentOption(withCommonOptions(program.command('audit')))
    .description(
      'check the directory: orphans, dangling or duplicate index lines, missing descriptions, unknown types, caps, truncated files, temp files and dead locks',
    )
    .option(
      '--fix',
      'delete leftover temp files and stale lock leftovers, clear locks of dead processes',
    )
    .action(async (opts: AgentOptions & { fix?: boolean }) => {
      const agent = opts.agent;
      const [project, ...others] =
        agent !== undefined
          ? await agentLayersFor(io, { ...opts, agent })
          : memoryChainFor(io, opts);
      const fix = { fix: opts.fix === true };
      const report = await auditMemoryDir(project!.dir, fix);
      // Every other layer is audited on its own; its problems say which layer they are in.
      const more = await Promise.all(
        others.map(async (l) => ({ ...(await auditMemoryDir(l.dir, fix)), layer: l.layer })),
      );
      const ok = report.ok && more.every((r) => r.ok);
      if (opts.json)
        printJson(io, {
          ...report,
          ok,
          layer: project!.layer,
          layers: [{ layer: project!.layer, dir: project!.dir, ok: report.ok }, ...more],
        });
      else {
        for (const f of report.fixed ?? []) io.stdout(`fixed ${f.kind}: ${f.file}\n`);
        for (const r of more) {
          for (const f of r.fixed ?? []) io.stdout(`fixed ${f.kind} [${r.layer}]: ${f.file}\n`);
        }
        const lines = [
          ...report.problems.map((p) => `${p.kind}: ${p.message}\n`),
          ...more.flatMap((r) => r.problems.map((p) => `${p.kind} [${r.layer}]: ${p.message}\n`)),
        ];
        const counts = more
          .filter((r) => r.memories > 0)
          .map((r) => `, ${r.memories} in the ${r.layer} layer`)
          .join('');
        io.stdout(
          ok
            ? `OK: ${report.memories} memories, ${report.indexEntries} index lines${counts}.\n`
            : lines.join(''),
        );
      }
      if (!ok) throw new CliExit(1);
    });
}
