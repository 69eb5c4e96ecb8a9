/**
 * Postings gathered while documents are added one after another, for an index to pack: each
 * occurrence lands in flat typed arrays (term number, document, weight), grouped by term once at
 * the end by a counting sort. One array pair per term (tens of thousands of small JS arrays,
 * regrown as they filled) made a cold index build spend much of its time collecting garbage and
 * pause a host's loop; typed arrays live outside the collected heap.
 */
export interface PostingLists {
  /** Term → its number, in order of first occurrence. */
  readonly ids: Map<string, number>;
  /** One more occurrence of `term` in document `doc` (documents come in ascending order). */
  add(term: string, doc: number, weight: number): void;
  /** Grouped by term, documents ascending, a term's occurrences in a document summed. */
  finishSteps(): Generator<
    void,
    { ids: Map<string, number>; offsets: Int32Array; docs: Int32Array; freqs: Float64Array }
  >;
}

/**
 * Occurrences grouped between two steps of `finishSteps` (a power of two). Small, because a host's
 * first build runs this code before it is compiled: at 65,536 a 2,000-memory build grouped all its
 * occurrences and weighed its postings in one step (8.8 ms of a host's loop, 2 cores under load).
 */
const GROUPED_PER_STEP = 8_192;

export function createPostingLists(): PostingLists {
  const ids = new Map<string, number>();
  // Per term: the last document it was seen in and where that posting is.
  let lastDoc = new Int32Array(1024);
  let lastAt = new Int32Array(1024);
  // Per posting: term, document, summed weight.
  let termOf = new Int32Array(4096);
  let docOf = new Int32Array(4096);
  let freqOf = new Float64Array(4096);
  let count = 0;
  const grow = <T extends Int32Array | Float64Array>(array: T, size: number): T => {
    if (size <= array.length) return array;
    const bigger = new (array.constructor as new (n: number) => T)(
      Math.max(size, 2 * array.length),
    );
    bigger.set(array);
    return bigger;
  };
  return {
    ids,
    add(term, doc, weight) {
      let t = ids.get(term);
      if (t === undefined) {
        t = ids.size;
        ids.set(term, t);
        lastDoc = grow(lastDoc, t + 1);
        lastAt = grow(lastAt, t + 1);
        lastDoc[t] = -1;
      } else if (lastDoc[t] === doc) {
        freqOf[lastAt[t]!]! += weight;
        return;
      }
      if (count === termOf.length) {
        termOf = grow(termOf, count + 1);
        docOf = grow(docOf, count + 1);
        freqOf = grow(freqOf, count + 1);
      }
      termOf[count] = t;
      docOf[count] = doc;
      freqOf[count] = weight;
      lastDoc[t] = doc;
      lastAt[t] = count++;
    },
    *finishSteps() {
      const terms = ids.size;
      const offsets = new Int32Array(terms + 1);
      for (let i = 0; i < count; i++) {
        if ((i & (GROUPED_PER_STEP - 1)) === GROUPED_PER_STEP - 1) yield;
        offsets[termOf[i]! + 1]!++;
      }
      yield;
      for (let t = 0; t < terms; t++) offsets[t + 1]! += offsets[t]!;
      yield;
      const next = offsets.slice(0, terms);
      const docs = new Int32Array(count);
      const freqs = new Float64Array(count);
      // In order of addition, so each term's documents stay ascending.
      for (let i = 0; i < count; i++) {
        if ((i & (GROUPED_PER_STEP - 1)) === GROUPED_PER_STEP - 1) yield;
        const at = next[termOf[i]!]!++;
        docs[at] = docOf[i]!;
        freqs[at] = freqOf[i]!;
      }
      return { ids, offsets, docs, freqs };
    },
  };
}
