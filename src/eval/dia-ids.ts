/**
 * LoCoMo dialog ids ("D<session>:<turn>") as the benchmark metric compares them. The release has
 * messy values — "D30:05", "D8:6; D9:17", "D26:14, D26:34", "D9:1 D4:4", "D:11:26", arrays — so
 * every id is extracted and canonicalised (leading zeros dropped) before any comparison.
 */
const DIA_ID_RE = /D:?\s*(\d+)\s*:\s*(\d+)/g;

/** Every dialog id inside `value` (a string, or arrays of strings), canonical, deduplicated. */
export function normalizeDiaIds(value: unknown): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(DIA_ID_RE)) {
        const id = `D${Number(m[1])}:${Number(m[2])}`;
        if (!out.includes(id)) out.push(id);
      }
    } else if (Array.isArray(v)) {
      for (const item of v) visit(item);
    }
  };
  visit(value);
  return out;
}
