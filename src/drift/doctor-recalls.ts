/**
 * The doctor's never-recalled check, per layer of the chain. Each layer's memories are looked up
 * in that layer's own recall log (a user memory is recalled from every project and logged in the
 * user layer's log, not the project's) and keyed as recall keys last-recalled times: by the
 * layer's directory and the file, so a same-named memory of another layer or repository never
 * counts; lines written before logs named directories, by file name.
 */
import { scanMemories } from '../memdir/index.js';
import {
  lastRecalledAt,
  lastRecalledFrom,
  metricsPathFor,
  type RecalledLine,
  readRecallMetrics,
} from '../recall/index.js';

/** A layer whose memories the check covers: its name, directory and the log its recalls are in. */
export interface RecallLogLayer {
  layer: string;
  dir: string;
  /** Default: the layer's own log, `<dir>/.engram/recall-metrics.jsonl`. */
  recallLog?: string;
}

/** What the check found in one layer. */
export interface LayerRecalls {
  layer: string;
  dir: string;
  log: string;
  /** Lines of the layer's log (each a logged recall). */
  recalls: number;
  /** Active memories with a description that no logged recall selected. */
  neverRecalled: string[];
}

/**
 * The memories among `files` (of the layer in `dir`) that no line of `lines` selected. Nothing
 * when no line names its files (a log from before files were logged says nothing). Pure.
 */
export function neverRecalledOf(
  lines: readonly RecalledLine[],
  dir: string,
  files: readonly string[],
): string[] {
  if (!lines.some((l) => Array.isArray(l.files))) return [];
  const times = lastRecalledFrom(lines);
  return files.filter((file) => lastRecalledAt(times, dir, file) === undefined);
}

/** One layer's never-recalled memories; `files` given for a layer the doctor has read already. */
export async function layerRecalls(
  layer: RecallLogLayer,
  files?: readonly string[],
): Promise<LayerRecalls> {
  const log = layer.recallLog ?? metricsPathFor(layer.dir);
  const [read, recallable] = await Promise.all([
    readRecallMetrics(log).catch(() => ({ shapes: [], badLines: 0 })),
    files ?? recallableFiles(layer.dir),
  ]);
  return {
    layer: layer.layer,
    dir: layer.dir,
    log,
    recalls: read.shapes.length,
    neverRecalled: neverRecalledOf(read.shapes, layer.dir, recallable),
  };
}

/** Files recall may pick in a layer's directory (active, readable, described); none when missing. */
async function recallableFiles(dir: string): Promise<string[]> {
  const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY }).catch(() => undefined);
  return (scan?.memories ?? [])
    .filter((m) => m.unreadable === undefined && m.status === 'active' && m.description)
    .map((m) => m.file);
}
