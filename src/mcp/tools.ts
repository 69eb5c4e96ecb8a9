/**
 * The operations behind the MCP tools: validated input in, text out. Thin: the policy lives in
 * memdir (write gate, index, revocation) and recall; failures throw and the server turns them
 * into `isError` results the model can read.
 */
import { type ClaimVerifier, createClaimVerifier } from '../drift/verifier.js';
import type { LanguageModel } from '../llm/types.js';
import {
  auditMemoryDir,
  checkMemoryInput,
  formatManifestLine,
  type MemoryType,
  memoryFileName,
  readMemory,
  resolveMemoryRef,
  revokeMemory,
  saveMemory,
  scanMemories,
} from '../memdir/index.js';
import { createEngram } from '../runtime/create-engram.js';
import type { Engram } from '../runtime/types.js';
import type { Clock } from '../util/clock.js';
import { EngramError, isEngramError } from '../util/errors.js';
import { NOTHING_RECALLED } from './prompts.js';

export interface MemoryToolsContext {
  dir: string;
  /** The runtime recall goes through (so it is logged like every door's); built by the server. */
  engram?: Engram;
  model?: LanguageModel;
  clock?: Clock;
  /** The project the agent works in; recall checks memories' claims against it when set. */
  projectDir?: string;
  /**
   * A long-lived host's claim verifier (the server makes one): each verification still takes a
   * fresh look at the project, without rebuilding the verifier per call. Without it, each recall
   * makes and disposes its own.
   */
  verifier?: ClaimVerifier;
}

/** A recall tool call is the model's own request, yet still bounded: verdicts late past this are left out. */
const MCP_VERIFY_BUDGET_MS = 1_500;

export interface ToolText {
  text: string;
  /** Extra blocks, e.g. the machine-readable shape of a recall. */
  extra?: string[];
  /**
   * Machine-readable result for clients that read `structuredContent` (also in `extra` as JSON).
   * It always carries `text` as well: some clients (Claude Code) show the model only this.
   */
  structured?: Record<string, unknown>;
}

/** The verifier an MCP recall checks claims with, bounded by the tool's verification budget. */
export function mcpClaimVerifier(projectDir: string, memoryDir: string): ClaimVerifier {
  return createClaimVerifier({ projectDir, memoryDir, budgetMs: MCP_VERIFY_BUDGET_MS });
}

export async function recallTool(
  ctx: MemoryToolsContext,
  args: { query: string; already_surfaced?: string[]; agent?: string },
): Promise<ToolText> {
  // A verifier made for this call is disposed with it; the host's (ctx.verifier) lives on.
  const made =
    ctx.verifier === undefined && ctx.projectDir !== undefined
      ? mcpClaimVerifier(ctx.projectDir, ctx.dir)
      : undefined;
  const verifier = ctx.verifier ?? made;
  const result = await runtimeOf(ctx)
    .recall({
      query: args.query,
      alreadySurfaced: args.already_surfaced ?? [],
      ...(verifier ? { verifier } : {}),
      ...(args.agent !== undefined ? { agent: args.agent } : {}),
    })
    .finally(() => made?.dispose());
  const text = result.text === '' ? NOTHING_RECALLED : result.text;
  const summary = {
    // Claude Code hands a tool's structuredContent to the model instead of its text content, so
    // what the model must read (the memories, or that none is relevant) travels here too.
    text,
    selected: result.selected.map((m) => ({
      file: m.file,
      layer: m.layer,
      type: m.type,
      description: m.description,
      header: m.header,
      ageDays: m.ageDays,
      stale: m.stale,
      truncated: m.truncated,
      claims: m.claims,
    })),
    shape: result.shape,
    notes: result.notes,
  };
  return {
    text,
    // Compact: the same object as `structured`, without a third of its bytes in indentation.
    extra: [JSON.stringify(summary)],
    structured: summary,
  };
}

export interface SaveArgs {
  type: MemoryType;
  name: string;
  description: string;
  body: string;
  file?: string;
  /**
   * `project` (default) or `user`: a fact about the person that holds in every project. With
   * `agent`: `local` (default), `project` or `user`, the agent's own directories.
   */
  scope?: 'project' | 'user' | 'local';
  /** Save into this agent's memory instead of the main chain. */
  agent?: string;
}

/** The runtime of a tool call: the server's, or one over the context's directory. */
function runtimeOf(ctx: MemoryToolsContext): Engram {
  return (
    ctx.engram ??
    createEngram({
      memoryDir: ctx.dir,
      ...(ctx.model ? { model: ctx.model } : {}),
      ...(ctx.clock ? { clock: ctx.clock } : {}),
    })
  );
}

/** The directory a save goes to: the project's, the user layer of the runtime's chain, or an agent's. */
async function saveDir(ctx: MemoryToolsContext, args: SaveArgs): Promise<string> {
  const { scope, agent } = args;
  if (agent !== undefined) {
    if (scope !== undefined && scope !== 'local' && scope !== 'project' && scope !== 'user') {
      throw new EngramError(
        'invalid_input',
        'Not saved. An agent scope is local, project or user.',
      );
    }
    return runtimeOf(ctx).agentDir(agent, scope ?? 'local');
  }
  if (scope === 'local') {
    throw new EngramError(
      'invalid_input',
      'Not saved. The local scope is for agent memory (pass agent).',
    );
  }
  if (scope !== 'user') return ctx.dir;
  const user = ctx.engram?.memoryChain.find((l) => l.layer === 'user');
  if (!user)
    throw new EngramError('invalid_input', 'Not saved. There is no user memory layer here.');
  return user.dir;
}

/**
 * The write gate for a model: missing description, type or body are refused, and so is a
 * feedback or project memory without its reason (it could never be judged stale later).
 */
export async function saveTool(ctx: MemoryToolsContext, args: SaveArgs): Promise<ToolText> {
  const check = checkMemoryInput(args);
  const refusals = [...check.errors];
  if ((args.type === 'feedback' || args.type === 'project') && check.warnings.length > 0) {
    refusals.push(...check.warnings);
  }
  if (refusals.length > 0) {
    throw new EngramError('invalid_input', `Not saved. ${refusals.join(' ')}`);
  }
  const { scope, agent, ...input } = args;
  const dir = await saveDir(ctx, args);
  const file = input.file ?? memoryFileName(input.name);
  const existing = await readMemory(dir, file).catch((error: unknown) => {
    if (isEngramError(error, 'not_found')) return undefined;
    throw error;
  });
  if (existing?.header.status === 'revoked') {
    throw new EngramError(
      'refused',
      `Not saved. ${file} holds a revoked memory (reason: ${String(existing.header.frontmatter.reason ?? 'none given')}); save the new memory under another name or file so the revocation stays on record.`,
    );
  }
  const saved = await saveMemory(dir, { ...input, file });
  const warnings = saved.warnings.length > 0 ? `\nWarnings: ${saved.warnings.join(' ')}` : '';
  const where =
    agent !== undefined
      ? ` in the memory of agent ${agent} (${scope ?? 'local'} scope, ${dir})`
      : scope === 'user'
        ? ` in the user layer (${dir}, recalled in every project)`
        : '';
  return {
    text: `${saved.created ? 'Saved' : 'Updated'} ${saved.file}${where} and its index line:\n${saved.indexLine}${warnings}`,
  };
}

export async function listTool(
  ctx: MemoryToolsContext,
  args: { include_revoked?: boolean; agent?: string },
): Promise<ToolText> {
  if (args.agent !== undefined)
    return listAgentTool(ctx, args.agent, args.include_revoked === true);
  const scan = await scanMemories(ctx.dir, { cap: Number.POSITIVE_INFINITY });
  const shown = args.include_revoked
    ? scan.memories
    : scan.memories.filter((m) => m.status === 'active');
  const hidden = scan.memories.length - shown.length;
  let counts = `${shown.length} ${shown.length === 1 ? 'memory' : 'memories'}${hidden > 0 ? ` (${hidden} revoked not shown)` : ''} in ${ctx.dir}`;
  const lines = shown.map(formatManifestLine);
  // The user layer's memories follow, each saying where it came from; the heading counts them too.
  const user = ctx.engram?.memoryChain.find((l) => l.layer === 'user');
  if (user) {
    const theirs = await scanMemories(user.dir, { cap: Number.POSITIVE_INFINITY });
    const listed = theirs.memories.filter((m) => args.include_revoked || m.status === 'active');
    for (const m of listed) lines.push(`${formatManifestLine(m)} (user layer, ${user.dir})`);
    if (listed.length > 0) counts += `, and ${listed.length} in the user layer (${user.dir})`;
  }
  return { text: lines.length === 0 ? counts : `${counts}\n${lines.join('\n')}` };
}

/**
 * A memory by file or name, looked up along the chain as `engram show` does: the project's first,
 * then the user layer's, which says where it came from.
 */
export async function readTool(ctx: MemoryToolsContext, args: { file: string }): Promise<ToolText> {
  try {
    const doc = await readMemory(ctx.dir, await resolveMemoryRef(ctx.dir, args.file));
    return { text: doc.content };
  } catch (error) {
    const user = ctx.engram?.memoryChain.find((l) => l.layer === 'user');
    if (!user || !isEngramError(error) || error.code !== 'not_found') throw error;
    // In neither layer: the project's answer, which names the directory the client serves.
    const doc = await resolveMemoryRef(user.dir, args.file)
      .then((file) => readMemory(user.dir, file))
      .catch(() => {
        throw error;
      });
    return { text: `(from the user layer, ${user.dir})\n${doc.content}` };
  }
}

export async function revokeTool(
  ctx: MemoryToolsContext,
  args: { file: string; reason: string; superseded_by?: string },
): Promise<ToolText> {
  if (!args.reason.trim()) throw new EngramError('invalid_input', 'A revocation needs a reason.');
  // Found as memory_read finds it: the project's first, then the user layer's; the replacement is
  // looked up in the same layer.
  const { dir, file, layer } = await locateForRevoke(ctx, args.file);
  const replacement =
    args.superseded_by === undefined ? undefined : await resolveMemoryRef(dir, args.superseded_by);
  if (replacement === file) {
    throw new EngramError(
      'invalid_input',
      `Not revoked. ${file} cannot be superseded by itself; name the memory that replaces it, or leave superseded_by out.`,
    );
  }
  // A second revocation would overwrite the first one's date and reason: refused, as by the CLI.
  const doc = await readMemory(dir, file);
  if (doc.header.status === 'revoked') {
    throw new EngramError(
      'invalid_input',
      `Not revoked. ${file} is already revoked (reason: ${String(doc.header.frontmatter.reason ?? 'none given')}); it is never recalled.`,
    );
  }
  await revokeMemory(dir, file, {
    reason: args.reason,
    ...(replacement !== undefined ? { supersededBy: replacement } : {}),
    ...(ctx.clock ? { clock: ctx.clock } : {}),
  });
  const replaced = replacement ? `, superseded by ${replacement}` : '';
  const where = layer === 'user' ? ` in the user layer (${dir})` : '';
  return {
    text: `Revoked ${file}${where}${replaced}. It stays on disk marked revoked, off the index, and is never recalled.`,
  };
}

/** The memory a revocation names: in the project directory, else in the user layer. */
async function locateForRevoke(
  ctx: MemoryToolsContext,
  ref: string,
): Promise<{ dir: string; file: string; layer: 'project' | 'user' }> {
  try {
    return { dir: ctx.dir, file: await resolveMemoryRef(ctx.dir, ref), layer: 'project' };
  } catch (error) {
    const user = ctx.engram?.memoryChain.find((l) => l.layer === 'user');
    if (!user || !isEngramError(error, 'not_found')) throw error;
    const file = await resolveMemoryRef(user.dir, ref).catch(() => {
      throw error;
    });
    return { dir: user.dir, file, layer: 'user' };
  }
}

export async function auditTool(ctx: MemoryToolsContext): Promise<ToolText> {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const describe = (report: Awaited<ReturnType<typeof auditMemoryDir>>, layer: string) => {
    const head = `${count(report.memories, 'memory', 'memories')}, ${count(report.indexEntries, 'index line', 'index lines')} in ${report.dir}${layer === 'project' ? '' : ` (${layer} layer)`}`;
    if (report.ok) return `No problems found: ${head}.`;
    const lines = report.problems.map((p) => `- [${p.kind}] ${p.message}`);
    return `${count(report.problems.length, 'problem', 'problems')} found (${head}):\n${lines.join('\n')}`;
  };
  const texts = [describe(await auditMemoryDir(ctx.dir), 'project')];
  // The user layer is audited on its own, and says so.
  const user = ctx.engram?.memoryChain.find((l) => l.layer === 'user');
  if (user) texts.push(describe(await auditMemoryDir(user.dir), 'user'));
  return { text: texts.join('\n') };
}

/** An agent's memories only, each marked with the scope it lives in. */
async function listAgentTool(
  ctx: MemoryToolsContext,
  agent: string,
  includeRevoked: boolean,
): Promise<ToolText> {
  const engram = runtimeOf(ctx);
  await engram.prepareAgent(agent);
  const lines: string[] = [];
  for (const layer of engram.agentChain(agent)) {
    const scan = await scanMemories(layer.dir, { cap: Number.POSITIVE_INFINITY });
    for (const m of scan.memories) {
      if (includeRevoked || m.status === 'active')
        lines.push(`${formatManifestLine(m)} [${layer.layer}]`);
    }
  }
  const counts = `${lines.length} ${lines.length === 1 ? 'memory' : 'memories'} of agent ${agent}`;
  return { text: lines.length === 0 ? counts : `${counts}\n${lines.join('\n')}` };
}
