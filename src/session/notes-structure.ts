/**
 * The notes file as data: level-1 `# ` headers, each followed by its italic description line, then
 * free content. Pure functions only: parsing, template-only detection, and the structure repair
 * that runs after every update (an updater that renames or deletes a header would otherwise break
 * the contract the next update and compaction rely on).
 */
import { descriptionLineOf, type NotesSectionSpec } from './prompts.js';

export interface ParsedSection {
  /** Header text without `# `. */
  title: string;
  /** Lines after the header, description slot included. */
  lines: string[];
}

export interface ParsedNotes {
  /** Lines before the first header. */
  preamble: string[];
  sections: ParsedSection[];
}

const FENCE = /^\s*(```|~~~)/;

/** Split notes into sections at level-1 headers outside code fences. */
export function parseNotes(text: string): ParsedNotes {
  const parsed: ParsedNotes = { preamble: [], sections: [] };
  let inFence = false;
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    if (FENCE.test(line)) inFence = !inFence;
    const header = !inFence && /^# (.*)$/.exec(line);
    if (header) {
      parsed.sections.push({ title: header[1]!.trim(), lines: [] });
      continue;
    }
    const current = parsed.sections.at(-1);
    (current ? current.lines : parsed.preamble).push(line);
  }
  return parsed;
}

function italicText(line: string): string | undefined {
  const m = /^\s*(?:_(.+)_|\*(?!\*)(.+)\*)\s*$/.exec(line);
  return m ? (m[1] ?? m[2])!.trim() : undefined;
}

/** Read a template (default or user file) back into section specs. */
export function parseTemplate(text: string): NotesSectionSpec[] {
  return parseNotes(text).sections.map((s) => {
    const first = s.lines.find((l) => l.trim() !== '');
    const description = (first && italicText(first)) ?? '';
    const line = first?.trim();
    // Only a form other than the default `_…_` is remembered (e.g. `*…*`).
    return description && line !== `_${description}_`
      ? { title: s.title, description, descriptionLine: line! }
      : { title: s.title, description };
  });
}

const descriptionLine = descriptionLineOf;

/** The content of a section: its lines minus the description slot, trimmed of blank edges. */
function contentOf(section: ParsedSection, spec: NotesSectionSpec | undefined): string[] {
  const lines = [...section.lines];
  const firstIndex = lines.findIndex((l) => l.trim() !== '');
  if (firstIndex >= 0) {
    const first = lines[firstIndex]!;
    const isSlot =
      (spec && first.trim() === descriptionLine(spec)) || italicText(first) !== undefined;
    // An italic first line is the description slot (possibly reworded by the updater): restore it.
    if (isSlot && spec?.description) lines.splice(0, firstIndex + 1);
  }
  while (lines.length && lines[0]!.trim() === '') lines.shift();
  while (lines.length && lines.at(-1)!.trim() === '') lines.pop();
  return lines;
}

/**
 * True when the notes say nothing yet: empty, identical to the template text (a user template may
 * carry example content), or every section holding only its header and description.
 */
export function isTemplateOnly(
  text: string,
  template: readonly NotesSectionSpec[],
  templateText?: string,
): boolean {
  if (text.trim() === '') return true;
  const normalize = (t: string) => t.replace(/\r\n/g, '\n').replace(/\s+$/gm, '').trim();
  if (templateText !== undefined && normalize(text) === normalize(templateText)) return true;
  const parsed = parseNotes(text);
  if (parsed.preamble.some((l) => l.trim() !== '')) return false;
  return parsed.sections.every((s) => {
    const spec = template.find((t) => t.title === s.title);
    return contentOf(s, spec).length === 0;
  });
}

export interface StructureCheck {
  /** The notes with every template header and description in place, content kept. */
  text: string;
  /** What had to be put back; empty when the notes were intact (text is then unchanged). */
  repairs: string[];
}

/**
 * Put back the template's headers and italic lines without losing content. Handles a removed
 * header (its description line, if still there, shows where the section began), a renamed header
 * (matched by position between intact neighbours), a reworded or deleted description line, and
 * added headers (demoted to `##` inside the section they appeared in).
 */
export function restoreNotesStructure(
  text: string,
  template: readonly NotesSectionSpec[],
): StructureCheck {
  const repairs: string[] = [];
  const parsed = splitAtOrphanDescriptions(parseNotes(text), template, repairs);
  const assigned = new Map<number, number>(); // parsed index -> template index
  const used = new Set<number>();
  parsed.sections.forEach((s, i) => {
    const t = template.findIndex((spec, ti) => !used.has(ti) && spec.title === s.title);
    if (t >= 0) {
      assigned.set(i, t);
      used.add(t);
    }
  });
  parsed.sections.forEach((s, i) => {
    if (assigned.has(i)) return;
    const t = positionalMatch(parsed.sections.length, i, assigned, used, template.length);
    if (t !== undefined) {
      assigned.set(i, t);
      used.add(t);
      repairs.push(`header "# ${s.title}" restored to "# ${template[t]!.title}"`);
    }
  });
  const bodies: string[][] = template.map(() => []);
  const preamble = parsed.preamble.filter((l) => l.trim() !== '');
  let target = -1;
  parsed.sections.forEach((s, i) => {
    const t = assigned.get(i);
    if (t === undefined) {
      repairs.push(`added header "# ${s.title}" kept as "## ${s.title}"`);
      const lines = [`## ${s.title}`, ...s.lines];
      if (target >= 0) bodies[target]!.push('', ...lines);
      else preamble.push(...lines);
      return;
    }
    target = t;
    const spec = template[t]!;
    const first = s.lines.find((l) => l.trim() !== '');
    if (spec.description && first?.trim() !== descriptionLine(spec)) {
      repairs.push(`description of "# ${spec.title}" restored`);
    }
    bodies[t]!.push(...contentOf(s, spec));
  });
  template.forEach((spec, t) => {
    if (!used.has(t)) repairs.push(`missing section "# ${spec.title}" restored`);
  });
  const order = [...assigned.values()];
  if (order.some((t, k) => k > 0 && t < order[k - 1]!)) repairs.push('section order restored');
  if (preamble.length && target >= 0) {
    repairs.push('text before the first header moved into the first section');
  }
  if (repairs.length === 0) return { text, repairs };
  if (preamble.length) bodies[0]!.unshift(...preamble, '');
  const out = template.map((spec, t) => {
    const body = trimBlankEdges(bodies[t]!);
    const head = [`# ${spec.title}`, ...(spec.description ? [descriptionLine(spec)] : [])];
    return [...head, ...body].join('\n');
  });
  return { text: `${out.join('\n\n')}\n`, repairs };
}

function trimBlankEdges(lines: string[]): string[] {
  const out = [...lines];
  while (out.length && out[0]!.trim() === '') out.shift();
  while (out.length && out.at(-1)!.trim() === '') out.pop();
  return out;
}

/**
 * A description line of a missing section marks where that section began: right under a renamed
 * header (rename it back) or inside the previous section after a deleted header (split there).
 */
function splitAtOrphanDescriptions(
  parsed: ParsedNotes,
  template: readonly NotesSectionSpec[],
  repairs: string[],
): ParsedNotes {
  const present = new Set(parsed.sections.map((s) => s.title));
  const missing = template.filter((t) => !present.has(t.title) && t.description);
  if (missing.length === 0) return parsed;
  const sections: ParsedSection[] = [];
  for (const section of parsed.sections) {
    let current: ParsedSection = { title: section.title, lines: [] };
    sections.push(current);
    const firstIndex = section.lines.findIndex((l) => l.trim() !== '');
    section.lines.forEach((line, index) => {
      const at = missing.findIndex((m) => line.trim() === descriptionLine(m));
      if (at < 0) {
        current.lines.push(line);
        return;
      }
      const spec = missing.splice(at, 1)[0]!;
      if (index === firstIndex) {
        repairs.push(`header "# ${current.title}" restored to "# ${spec.title}"`);
        current.title = spec.title;
        current.lines.push(line);
      } else {
        repairs.push(`deleted header "# ${spec.title}" restored`);
        current = { title: spec.title, lines: [line] };
        sections.push(current);
      }
    });
  }
  return { preamble: parsed.preamble, sections };
}

/** The template slot for an unknown header that sits where exactly one section is missing. */
function positionalMatch(
  count: number,
  index: number,
  assigned: Map<number, number>,
  used: Set<number>,
  templateLength: number,
): number | undefined {
  let before = -1;
  for (let i = index - 1; i >= 0; i--) {
    const t = assigned.get(i);
    if (t !== undefined) {
      before = t;
      break;
    }
  }
  let after = templateLength;
  for (let i = index + 1; i < count; i++) {
    const t = assigned.get(i);
    if (t !== undefined) {
      after = t;
      break;
    }
  }
  const free: number[] = [];
  for (let t = before + 1; t < after; t++) if (!used.has(t)) free.push(t);
  // Only an unambiguous gap is a rename; anything else is an added header.
  const unassignedBetween = countUnassigned(index, assigned, count);
  return free.length === 1 && unassignedBetween === 1 ? free[0] : undefined;
}

function countUnassigned(index: number, assigned: Map<number, number>, count: number): number {
  let n = 1;
  for (let i = index - 1; i >= 0 && !assigned.has(i); i--) n++;
  for (let i = index + 1; i < count && !assigned.has(i); i++) n++;
  return n;
}
