import { existsSync, statSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  agentMemoryChain,
  type EngramEnvironment,
  engramHome,
  loadSettings,
  type MemoryLayer,
  type MemoryLayerName,
  mergedSettings,
  resolveMemoryChain,
  type SettingsFile,
  sanitizeProjectPath,
  userMemoryDir,
  validateAgentName,
} from '../config/index.js';
import type { Dreamer } from '../dream/dreamer.js';
import { resolveModel } from '../llm/resolve-model.js';
import type { LanguageModel } from '../llm/types.js';
import { agentFolderLink } from '../memdir/agent-snapshot.js';
import {
  agentWriteDir,
  explicitMemoryDir,
  knownAgentNames,
  type MemoryDirResolution,
  prepareAgentMemory,
  resolveMemoryDir,
  saveMemory,
} from '../memdir/index.js';
import {
  type DecayConstants,
  decayFromSettings,
  metricsPathFor,
  type RecallOptions,
  type RecallResult,
  readRecallMetrics,
  recall,
  summarizeRecallMetrics,
} from '../recall/index.js';
import { systemClock } from '../util/clock.js';
import { EngramError } from '../util/errors.js';
import { sameDirectory } from '../util/same-directory.js';
import { openEngramSession } from './session.js';
import { projectSessionLister } from './sessions.js';
import type { Engram, EngramOptions, RecallRequest } from './types.js';

/** Of a recall's time budget, what is kept for reading and rendering the chosen memories. */
const RENDER_RESERVE_MS = 250;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function memoryDirOf(environment: EngramEnvironment, options: EngramOptions): MemoryDirResolution {
  if (options.memoryDir !== undefined) return explicitMemoryDir(environment, options.memoryDir);
  return resolveMemoryDir(
    environment,
    options.memoryDirFlag !== undefined ? { flag: options.memoryDirFlag } : {},
  );
}

/**
 * The composition root. Resolves, once, the configuration and the memory directory with its
 * trust, the model (or none), the clock, the stores (cursors, notes, running-update records, the
 * recall log), the consolidation throttle and session lister; every door (the library, the CLI,
 * the Claude Code hooks, the MCP server, the memory-tool handler) runs on what it returns.
 *
 * @example
 * const engram = createEngram({ cwd: process.cwd(), model });
 * const session = engram.openSession({ sessionId });
 * const system = await session.systemPrompt();
 */
export function createEngram(options: EngramOptions = {}): Engram {
  // From JavaScript a wrong type would surface as Node's "paths[0]" TypeError, naming nothing.
  for (const key of ['cwd', 'memoryDir', 'homedir'] as const) {
    const value = options[key];
    if (value !== undefined && typeof value !== 'string')
      throw new EngramError('invalid_input', `${key} must be a path string (got ${typeof value})`);
  }
  const environment: EngramEnvironment = {
    cwd: resolve(options.cwd ?? process.cwd()),
    env: options.env ?? process.env,
    homedir: options.homedir ?? osHomedir(),
  };
  const resolution = memoryDirOf(environment, options);
  const memoryDir = resolution.path;
  const memoryChain = resolveMemoryChain({
    project: { dir: memoryDir, trusted: resolution.writeWithoutPrompt },
    engramHome: engramHome(environment),
    sameDir: sameDirectory,
    ...(options.userLayer === false ? { user: false } : {}),
  });
  const clock = options.clock ?? systemClock;
  const agentRoots = { engramHome: engramHome(environment), projectRoot: resolution.projectRoot };
  let settingsFilesMemo: SettingsFile[] | undefined;
  const settingsFiles = () => {
    settingsFilesMemo ??= loadSettings(environment);
    return settingsFilesMemo;
  };
  let settingsMemo: Record<string, unknown> | undefined;
  const settings = () => {
    settingsMemo ??= mergedSettings(settingsFiles());
    return settingsMemo;
  };
  let decayMemo: DecayConstants | undefined;
  // Any settings file may tune it: it changes an order, not where data goes or what runs.
  const decay = () => {
    decayMemo ??= options.decay ?? decayFromSettings(settings().recallDecay).decay;
    return decayMemo;
  };
  let model: LanguageModel | undefined;
  let modelProblem: string | undefined;
  let modelDescription: string | undefined;
  if (options.model === 'configured') {
    const setting = settings().model;
    const resolved = resolveModel({
      env: environment.env,
      ...(typeof setting === 'string' ? { settings: { model: setting } } : {}),
    });
    if (resolved.ok) {
      model = resolved.model;
      modelDescription = resolved.description;
    } else modelProblem = resolved.reason;
  } else if (options.model) model = options.model;
  const defaultLog = metricsPathFor(memoryDir);
  const recallLog = options.recallLog === false ? undefined : (options.recallLog ?? defaultLog);
  const sessions =
    options.sessions ??
    projectSessionLister(environment, resolution.projectRoot, options.transcriptDirs);
  // One scan throttle per memory directory, on disk: hosts that start a process per turn (hooks)
  // and long-running ones share it, so no door rescans sessions every turn past the time gate.
  const throttlePath = join(
    engramHome(environment),
    'hooks',
    'dream-scan',
    sanitizeProjectPath(memoryDir),
  );

  /** The log a recall appends to: never creates a memory directory just to log a read. */
  const logFor = (request: RecallRequest): string | undefined => {
    if (request.log === false) return undefined;
    if (typeof request.log === 'string') return request.log;
    if (recallLog === defaultLog && !isDirectory(memoryDir)) return undefined;
    return recallLog;
  };

  /**
   * The user layer keeps its own recall log (`<user dir>/.engram/recall-metrics.jsonl`): its
   * memories are recalled in every project, some without a memory folder to log in, and their
   * last-recalled time (the reference decay's input) must not depend on the project. Only with
   * the default log: a host that names its log, or turns it off, keeps every line there.
   */
  const ownLayerLogs = (
    namedLog: boolean,
    layers: readonly MemoryLayer[],
  ): Partial<Record<MemoryLayerName, string>> => {
    if (namedLog || options.recallLog !== undefined) return {};
    const user = layers.find((l) => l.layer === 'user');
    return user ? { user: metricsPathFor(user.dir) } : {};
  };
  const layerLogsFor = (request: RecallRequest, layers: readonly MemoryLayer[]) => {
    const layerLogs = ownLayerLogs(request.log !== undefined, layers);
    return Object.keys(layerLogs).length > 0 ? { layerLogs } : {};
  };

  const engram: Engram = {
    environment,
    memoryDir,
    memoryDirResolution: resolution,
    memoryChain,
    projectRoot: resolution.projectRoot,
    model,
    modelDescription,
    modelProblem,
    clock,
    get settings() {
      return settings();
    },
    get memoryEnabled() {
      return settings().autoMemoryEnabled !== false;
    },
    get dreamEnabled() {
      return settings().autoDreamEnabled !== false;
    },
    recallLog,
    sessions,
    // A project-side agent folder reached through a link is not a layer (its writes are refused
    // by prepareAgent and agentDir; its files must not reach the prompt either).
    agentChain: (agent) =>
      agentMemoryChain(agentRoots, agent).filter(
        (l) => agentFolderLink(agentRoots, l.dir) === undefined,
      ),
    prepareAgent: (agent) => prepareAgentMemory(agentRoots, validateAgentName(agent), clock.now()),
    knownAgents: () => knownAgentNames(agentRoots),
    agentDir: (agent, scope = 'local') =>
      agentWriteDir(agentRoots, validateAgentName(agent), scope),
    openSession: (sessionOptions = {}) => openEngramSession(engram, sessionOptions, runtimeHooks),
    recall: (request) => runRecall(request),
    async saveMemory({ scope = 'project', ...input }) {
      const layer = memoryChain.find((l) => l.layer === scope);
      if (!layer) throw new EngramError('invalid_input', `there is no ${scope} memory layer`);
      const saved = await saveMemory(layer.dir, input);
      return { ...saved, layer: scope, dir: layer.dir };
    },
    async stats(statsOptions = {}) {
      const summarize = async (log: string) => {
        const { shapes, badLines } = await readRecallMetrics(log);
        return { log, stats: summarizeRecallMetrics(shapes), badLines };
      };
      const own = await summarize(statsOptions.log ?? recallLog ?? defaultLog);
      // A further layer's log once it exists: before any recall injected one of its memories there
      // is nothing to summarise, and an empty block for every repository would be noise.
      const further = Object.entries(
        ownLayerLogs(statsOptions.log !== undefined, memoryChain),
      ).filter((entry): entry is [MemoryLayerName, string] => !!entry[1] && existsSync(entry[1]));
      const layers = await Promise.all(
        further.map(async ([layer, log]) => ({ layer, ...(await summarize(log)) })),
      );
      return { ...own, layers };
    },
    async doctor(doctorOptions = {}) {
      // Loaded on first use, like the dreamer: no hook process pays for the doctor.
      const { diagnoseMemoryDir } = await import('../drift/doctor.js');
      // A named log holds every layer's lines (as a recall with a named log keeps them there).
      const named =
        doctorOptions.log ??
        (typeof options.recallLog === 'string' ? options.recallLog : undefined);
      const log = named !== undefined ? { recallLog: named } : {};
      const layer = sameDirectory(memoryDir, userMemoryDir(engramHome(environment)))
        ? 'user'
        : 'project';
      return diagnoseMemoryDir(memoryDir, {
        projectDir: doctorOptions.projectDir ?? environment.cwd,
        ...(doctorOptions.verifyBudgetMs !== undefined
          ? { verifyBudgetMs: doctorOptions.verifyBudgetMs }
          : {}),
        settings: settings(),
        settingsFiles: settingsFiles(),
        clock,
        layer,
        ...log,
        // The directory itself is checked once, as `layer`; the chain's other layers after it (the
        // chain starts with this directory and never holds it twice, see resolveMemoryChain).
        layers: memoryChain.slice(1).map((l) => ({ layer: l.layer, dir: l.dir, ...log })),
      });
    },
    async dreamer(dreamerOptions = {}): Promise<Dreamer> {
      // Loaded on first use: a hook process that only recalls never pays for consolidation.
      const [{ createDreamer }, { fileScanThrottle }] = await Promise.all([
        import('../dream/dreamer.js'),
        import('../dream/file-scan-throttle.js'),
      ]);
      const userDir = memoryChain.find((l) => l.layer === 'user')?.dir;
      return createDreamer({
        memoryDir,
        ...(userDir === undefined ? {} : { userDir }),
        ...(model ? { model } : {}),
        sessions: dreamerOptions.sessions ?? sessions,
        memoryEnabled: engram.memoryEnabled,
        dreamEnabled: engram.dreamEnabled,
        clock,
        ...(dreamerOptions.sharedThrottle === false
          ? {}
          : { scanThrottle: fileScanThrottle(throttlePath) }),
        ...(dreamerOptions.maxTurns === undefined
          ? {}
          : { config: { maxTurns: dreamerOptions.maxTurns } }),
      });
    },
  };

  function recallOptions(request: RecallRequest): RecallOptions {
    const useModel = model !== undefined && request.modelRecall !== false;
    const budgetMs = request.budgetMs;
    const signals = [
      ...(request.signal ? [request.signal] : []),
      ...(budgetMs !== undefined ? [AbortSignal.timeout(budgetMs)] : []),
    ];
    const log = logFor(request);
    // An agent's turn sees its own memory only; any other turn the main chain only.
    const layers = request.agent !== undefined ? engram.agentChain(request.agent) : memoryChain;
    return {
      dir: layers[0]!.dir,
      layers,
      query: request.query,
      clock: request.clock ?? clock,
      ...(request.messages ? { messages: request.messages } : {}),
      ...(request.alreadySurfaced ? { alreadySurfaced: request.alreadySurfaced } : {}),
      ...(request.recentTools ? { recentTools: request.recentTools } : {}),
      ...(request.limits ? { limits: request.limits } : {}),
      ...(request.selectorTimeoutMs !== undefined
        ? { selectorTimeoutMs: request.selectorTimeoutMs }
        : {}),
      ...(request.staleAfterDays !== undefined ? { staleAfterDays: request.staleAfterDays } : {}),
      decay: decay(),
      // Scanning and ranking stop in time to read and render what they found within the budget.
      ...(budgetMs !== undefined
        ? {
            budgetMs: Math.max(1, budgetMs - Math.min(RENDER_RESERVE_MS, Math.floor(budgetMs / 4))),
          }
        : {}),
      ...(signals.length === 1 ? { signal: signals[0]! } : {}),
      ...(signals.length > 1 ? { signal: AbortSignal.any(signals) } : {}),
      ...(useModel ? { model } : {}),
      ...(log ? { metricsLog: log } : {}),
      ...layerLogsFor(request, layers),
      ...(request.verifier ? { verifier: request.verifier } : {}),
    };
  }

  async function runRecall(request: RecallRequest): Promise<RecallResult> {
    if (request.agent !== undefined) await engram.prepareAgent(request.agent);
    return recall(recallOptions(request));
  }

  const runtimeHooks = { recallOptions, emit: options.onEvent };
  return engram;
}

/** What a session needs from its runtime beyond the public surface. */
export interface RuntimeInternals {
  recallOptions(request: RecallRequest): RecallOptions;
  emit: EngramOptions['onEvent'];
}
