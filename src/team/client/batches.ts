/**
 * Push batches. Keys are sorted and packed greedily, and the size that counts is the byte length
 * of the request body exactly as it is sent (JSON quotes, escapes and braces included). Sorting
 * makes the batches a pure function of the set being pushed, so a retry after a partial commit
 * forms the same batches again.
 */

export interface Batch {
  keys: string[];
  /** The serialized request body, sent as is. */
  body: string;
  bytes: number;
}

export interface BatchPlan {
  batches: Batch[];
  /** Keys whose body alone would pass the cap: they are never sent. */
  tooLarge: string[];
}

const OPEN = '{"entries":{';
const CLOSE = '}}';

/** The one serializer: `packBatches` measures with it and the client sends its output. */
export function serializeBatch(entries: ReadonlyArray<readonly [string, string]>): string {
  return `${OPEN}${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}${CLOSE}`;
}

export function packBatches(entries: ReadonlyMap<string, string>, maxBodyBytes: number): BatchPlan {
  const keys = [...entries.keys()].sort();
  const frame = Buffer.byteLength(OPEN) + Buffer.byteLength(CLOSE);
  const batches: Batch[] = [];
  const tooLarge: string[] = [];
  let current: Array<readonly [string, string]> = [];
  let size = frame;
  const flush = () => {
    if (current.length === 0) return;
    const body = serializeBatch(current);
    batches.push({ keys: current.map(([k]) => k), body, bytes: Buffer.byteLength(body) });
    current = [];
    size = frame;
  };
  for (const key of keys) {
    const value = entries.get(key)!;
    const member = Buffer.byteLength(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
    if (frame + member > maxBodyBytes) {
      tooLarge.push(key);
      continue;
    }
    const added = member + (current.length > 0 ? 1 : 0); // the comma
    if (size + added > maxBodyBytes) flush();
    size += member + (current.length > 0 ? 1 : 0);
    current.push([key, value]);
  }
  flush();
  return { batches, tooLarge };
}
