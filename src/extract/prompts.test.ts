import { describe, expect, it } from 'vitest';
import { buildExtractionPrompt, EXTRACTION_HEADINGS, formatSavedNotice } from './prompts.js';

const options = {
  newMessageCount: 7,
  memoryDir: '/m/memory',
  manifest:
    '- [feedback] a.md (2026-11-01T00:00:00.000Z): rule a\n- [project] b.md (2026-10-01T00:00:00.000Z) [revoked]: b',
  today: '2026-11-29',
};

const headings = [
  EXTRACTION_HEADINGS.intro,
  EXTRACTION_HEADINGS.scope(7),
  EXTRACTION_HEADINGS.turns,
  EXTRACTION_HEADINGS.gate,
  EXTRACTION_HEADINGS.types,
  EXTRACTION_HEADINGS.save,
  EXTRACTION_HEADINGS.existing,
  EXTRACTION_HEADINGS.revoke,
  EXTRACTION_HEADINGS.silent,
  EXTRACTION_HEADINGS.manifest,
];

/** Text of the section that starts at `heading` and ends at the next heading. */
function section(prompt: string, heading: string): string {
  const start = prompt.indexOf(`${heading}\n`);
  const next = prompt.indexOf('\n## ', start + heading.length);
  return prompt.slice(start, next < 0 ? undefined : next);
}

describe('buildExtractionPrompt', () => {
  const prompt = buildExtractionPrompt(options);

  it('has every section once, in order, each header a line of its own', () => {
    const positions = headings.map((h) => prompt.indexOf(`${h}\n`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const h of headings) expect(prompt.split(`${h}\n`)).toHaveLength(2);
    expect(prompt.match(/^#{1,2} /gm)).toHaveLength(headings.length);
  });

  it('uses headers that tell the agent what to do', () => {
    const verbs = /^#{1,2} (Update|Use|Read|Save|Pick|Revoke|Keep|Check)\b/;
    for (const h of headings) expect(h).toMatch(verbs);
  });

  it('limits the agent to the new messages and forbids verification', () => {
    const scope = section(prompt, EXTRACTION_HEADINGS.scope(7));
    expect(scope).toContain('last ~7 messages');
    expect(scope).toMatch(/do not investigate or verify/i);
    expect(scope).toMatch(/git/);
  });

  it('plans the turns: all reads first, all writes next, nothing when nothing qualifies', () => {
    const turns = section(prompt, EXTRACTION_HEADINGS.turns);
    expect(turns).toMatch(/first turn, read every memory file/);
    expect(turns).toMatch(/second turn, issue every write and edit/);
    expect(turns).toContain('/m/memory');
    expect(turns).toMatch(/Deleting files is refused/);
  });

  it('explains the /memories root only when the host has the memory tool', () => {
    expect(prompt).not.toContain('/memories');
    const withTool = buildExtractionPrompt({ ...options, memoryTool: true });
    expect(section(withTool, EXTRACTION_HEADINGS.turns)).toContain(
      '`/memories` stands for this directory',
    );
  });

  it('keeps the write gate even when the user asks, redirecting snapshots to what was surprising', () => {
    const gate = section(prompt, EXTRACTION_HEADINGS.gate);
    expect(gate).toMatch(/even when the user asked/);
    expect(gate).toMatch(/surprising or non-obvious/);
    for (const topic of ['git', 'instruction files', 'fixes']) expect(gate).toContain(topic);
  });

  it('asks for confirmations as well as corrections', () => {
    const types = section(prompt, EXTRACTION_HEADINGS.types);
    for (const t of ['**user**', '**feedback**', '**project**', '**reference**'])
      expect(types).toContain(t);
    expect(types).toMatch(/confirmations/);
  });

  it('describes the two-step save with Why and How to apply, and absolute dates from today', () => {
    const save = section(prompt, EXTRACTION_HEADINGS.save);
    expect(save.indexOf('1. Write')).toBeLessThan(save.indexOf('2. Add one line'));
    expect(save).toContain('**Why:**');
    expect(save).toContain('**How to apply:**');
    expect(save).toContain('/m/memory/MEMORY.md');
    expect(save).toContain('today is 2026-11-29');
  });

  it('revokes instead of deleting, and keeps the extraction out of memories', () => {
    const revoke = section(prompt, EXTRACTION_HEADINGS.revoke);
    for (const key of ['status: revoked', 'revoked:', 'reason:', 'superseded_by:'])
      expect(revoke).toContain(key);
    expect(revoke).toMatch(/Never delete/);
    expect(section(prompt, EXTRACTION_HEADINGS.silent)).toMatch(/Never mention this extraction/);
  });

  it('ends with the manifest so no turn is spent listing, and says when there is none', () => {
    expect(prompt.endsWith(options.manifest)).toBe(true);
    expect(buildExtractionPrompt({ ...options, manifest: '' }).endsWith('(none yet)')).toBe(true);
  });

  it('is deterministic', () => {
    expect(buildExtractionPrompt(options)).toBe(prompt);
  });
});

describe('buildExtractionPrompt with a user layer', () => {
  const layered = buildExtractionPrompt({
    ...options,
    memoryTool: true,
    userDir: '/h/.engram/user/memory',
    userManifest: '- [user] answer-in-chinese.md (2026-11-01T00:00:00.000Z): replies in Chinese',
  });

  it('adds one section on where a fact goes, after the types and before the save steps', () => {
    const order = [
      EXTRACTION_HEADINGS.types,
      EXTRACTION_HEADINGS.layers,
      EXTRACTION_HEADINGS.save,
    ].map((h) => layered.indexOf(`${h}\n`));
    expect(order.every((p) => p >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(layered.match(/^#{1,2} /gm)).toHaveLength(headings.length + 1);
    expect(EXTRACTION_HEADINGS.layers).toMatch(/^## Save\b/);
    expect(buildExtractionPrompt(options)).not.toContain(EXTRACTION_HEADINGS.layers);
  });

  it('says what belongs to the person, what stays with the project, and which way to lean', () => {
    const layers = section(layered, EXTRACTION_HEADINGS.layers);
    expect(layers).toContain('`/m/memory`');
    expect(layers).toContain('`/h/.engram/user/memory`');
    for (const about of ['language', 'role', 'how they like to work'])
      expect(layers).toContain(about);
    expect(layers).toMatch(/only when it is a \*\*user\*\* memory/);
    expect(layers).toMatch(/not sure, use the project directory/);
    expect(layers).toMatch(/own MEMORY\.md/);
    expect(layers).toContain('answer-in-chinese.md');
  });

  it('opens both directories for writing and maps /memories/user onto the user directory', () => {
    const turns = section(layered, EXTRACTION_HEADINGS.turns);
    expect(turns).toContain('`/m/memory`');
    expect(turns).toContain('`/h/.engram/user/memory`');
    expect(turns).toContain('`/memories/user/<name>.md` a user memory');
  });
});

describe('formatSavedNotice', () => {
  it('counts in the singular and the plural', () => {
    expect(formatSavedNotice(['a.md'])).toBe('Saved 1 memory: a.md');
    expect(formatSavedNotice(['a.md', 'b.md'])).toBe('Saved 2 memories: a.md, b.md');
  });

  it('names the layer of every file once one went to the user layer, and the path of those', () => {
    const project = { layer: 'project' as const, file: 'a.md', path: '/m/memory/a.md' };
    const user = { layer: 'user' as const, file: 'b.md', path: '/h/user/memory/b.md' };
    expect(formatSavedNotice([project])).toBe('Saved 1 memory: a.md');
    expect(formatSavedNotice([project, user])).toBe(
      'Saved 2 memories: a.md (project), b.md (user: /h/user/memory/b.md)',
    );
  });
});
