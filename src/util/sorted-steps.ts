/**
 * `strings.slice().sort()` in steps: a bottom-up merge sort that yields between runs of about
 * `perStep` elements, so a long-running host can pause while tens of thousands of terms are sorted
 * (one `Array.prototype.sort` of a built index's terms was one of the longest pauses its loop saw).
 * The order is the default sort's (UTF-16 code units), so the result is the same array. Pure.
 */
export function* sortedSteps(
  strings: readonly string[],
  perStep = 4_096,
): Generator<void, string[]> {
  const n = strings.length;
  let from = strings.slice();
  let work = 0;
  // Sorted runs of `perStep` each, one per step.
  for (let start = 0; start < n; start += perStep) {
    const run = from.slice(start, start + perStep).sort();
    for (let i = 0; i < run.length; i++) from[start + i] = run[i]!;
    yield;
  }
  let to = new Array<string>(n);
  for (let width = perStep; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k++) {
        to[k] = i < mid && (j >= hi || from[i]! <= from[j]!) ? from[i++]! : from[j++]!;
        if (++work >= perStep) {
          work = 0;
          yield;
        }
      }
    }
    [from, to] = [to, from];
  }
  return from;
}
