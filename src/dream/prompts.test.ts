import { describe, expect, it } from 'vitest';
import { buildDreamPrompt, DREAM_PROMPT_HEADINGS, notAMemoryFileRefusal } from './prompts.js';

const options = {
  memoryDir: '/home/u/.engram/projects/-w/memory',
  now: new Date('2026-11-29T10:00:00Z'),
  sessions: [
    { id: 'abc', path: '/t/abc.jsonl', mtimeMs: Date.parse('2026-11-28T09:00:00Z') },
    { id: 'def', path: '/t/def.jsonl', mtimeMs: Date.parse('2026-11-27T09:00:00Z') },
  ],
};

describe('dream prompt', () => {
  const prompt = buildDreamPrompt(options);

  it('has every section once, in order: intro, limits, the four phases, sessions, finish', () => {
    const order = [
      DREAM_PROMPT_HEADINGS.intro,
      DREAM_PROMPT_HEADINGS.rules,
      DREAM_PROMPT_HEADINGS.orient,
      DREAM_PROMPT_HEADINGS.gather,
      DREAM_PROMPT_HEADINGS.consolidate,
      DREAM_PROMPT_HEADINGS.prune,
      DREAM_PROMPT_HEADINGS.sessions,
      DREAM_PROMPT_HEADINGS.finish,
    ];
    const positions = order.map((h) => prompt.indexOf(`${h}\n`));
    for (const [i, p] of positions.entries()) expect(p, order[i]).toBeGreaterThanOrEqual(0);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (const h of order) expect(prompt.split(`${h}\n`)).toHaveLength(2);
  });

  it('phase headings are numbered and lead with the action', () => {
    const phases = [
      DREAM_PROMPT_HEADINGS.orient,
      DREAM_PROMPT_HEADINGS.gather,
      DREAM_PROMPT_HEADINGS.consolidate,
      DREAM_PROMPT_HEADINGS.prune,
    ];
    const verbs = ['Orient', 'Gather', 'Consolidate', 'Prune and index'];
    phases.forEach((h, i) => {
      expect(h).toMatch(new RegExp(`^## Phase ${i + 1} — ${verbs[i]}: [a-z]+ `));
    });
    for (const h of Object.values(DREAM_PROMPT_HEADINGS).filter((x) => !x.includes('Phase'))) {
      // every other heading is an instruction: its first word is an imperative verb
      expect(h).toMatch(/^#{1,2} (Consolidate|Work|Keep|Sessions to review|Finish)/);
    }
  });

  it('carries the rules each phase exists for', () => {
    const section = (from: string, to: string) =>
      prompt.slice(prompt.indexOf(from), prompt.indexOf(to));
    const orient = section(DREAM_PROMPT_HEADINGS.orient, DREAM_PROMPT_HEADINGS.gather);
    expect(orient).toMatch(/MEMORY\.md/);
    expect(orient).toMatch(/duplicate/);
    const gather = section(DREAM_PROMPT_HEADINGS.gather, DREAM_PROMPT_HEADINGS.consolidate);
    expect(gather).toMatch(/contradict/);
    expect(gather).toMatch(/Never read a transcript from start to end/);
    const consolidate = section(DREAM_PROMPT_HEADINGS.consolidate, DREAM_PROMPT_HEADINGS.prune);
    expect(consolidate).toMatch(/instead of creating a new one/);
    expect(consolidate).toMatch(/today is 2026-11-29/);
    expect(consolidate).toMatch(/status: revoked/);
    expect(consolidate).toMatch(/superseded_by/);
    expect(consolidate).toMatch(/Never add a correction beside a wrong memory/);
    const prune = section(DREAM_PROMPT_HEADINGS.prune, DREAM_PROMPT_HEADINGS.sessions);
    expect(prune).toMatch(/200 lines and 25,000 bytes/);
    expect(prune).toMatch(/150 characters/);
    expect(prune).toMatch(/missing or revoked files/);
  });

  it('lists the sessions with their paths and the memory directory; deterministic', () => {
    expect(prompt).toContain('2 sessions since the last consolidation:');
    expect(prompt).toContain('- abc — /t/abc.jsonl (last active 2026-11-28T09:00:00.000Z)');
    expect(prompt).toContain(options.memoryDir);
    expect(buildDreamPrompt(options)).toBe(prompt);
    expect(buildDreamPrompt({ ...options, sessions: [] })).toMatch(
      /0 sessions .*\n- \(none listed/,
    );
  });

  it('names at most the newest 100 sessions and says how many more there are', () => {
    const many = Array.from({ length: 1_234 }, (_, i) => ({
      id: `s-${i}`,
      path: `/t/s-${i}.jsonl`,
      mtimeMs: Date.UTC(2026, 0, 1) - i * 60_000,
    }));
    const text = buildDreamPrompt({ ...options, sessions: many });
    expect(text).toContain('1234 sessions since the last consolidation, newest 100 listed:');
    expect(text).toContain('- s-99 — /t/s-99.jsonl');
    expect(text).not.toContain('s-100 ');
    expect(text).toContain('(1134 older sessions are not listed;');
    expect(text.length).toBeLessThan(20_000);
  });

  it('includes the manifest when given, so revoked memories are visible as revoked', () => {
    const withManifest = buildDreamPrompt({
      ...options,
      manifest: '- [project] old.md (2026-01-01T00:00:00.000Z) [revoked]: old deploy',
    });
    expect(withManifest).toMatch(/Memories on disk now[^\n]*\n- \[project\] old\.md .*\[revoked\]/);
    expect(withManifest).not.toMatch(/not listed here/);
    const capped = buildDreamPrompt({ ...options, manifest: '- [user] a.md', manifestOmitted: 12 });
    expect(capped).toMatch(
      /- \[user\] a\.md\n\(12 older memories are not listed here; list the directory/,
    );
  });

  it('with a user layer, opens it for writing and says which facts move there and how', () => {
    const userDir = '/home/u/.engram/user/memory';
    const layered = buildDreamPrompt({
      ...options,
      userDir,
      userManifest: '- [user] answer-in-chinese.md (2026-11-01T00:00:00.000Z): reply in Chinese',
    });
    expect(prompt).not.toContain(DREAM_PROMPT_HEADINGS.layers);
    const at = (h: string) => layered.indexOf(`${h}\n`);
    expect(at(DREAM_PROMPT_HEADINGS.consolidate)).toBeLessThan(at(DREAM_PROMPT_HEADINGS.layers));
    expect(at(DREAM_PROMPT_HEADINGS.layers)).toBeLessThan(at(DREAM_PROMPT_HEADINGS.prune));
    const rules = layered.slice(at(DREAM_PROMPT_HEADINGS.rules), at(DREAM_PROMPT_HEADINGS.orient));
    expect(rules).toContain(`\`${userDir}\``);
    const layers = layered.slice(at(DREAM_PROMPT_HEADINGS.layers), at(DREAM_PROMPT_HEADINGS.prune));
    expect(layers).toMatch(/would hold just as well in any other repository/);
    expect(layers).toMatch(/revoke the project's copy with `superseded_by`/);
    expect(layers).toMatch(/When in doubt, leave a memory where it is/);
    expect(layers).toContain('answer-in-chinese.md');
  });

  it('the refusal for non-memory writes names the path and what is allowed', () => {
    expect(notAMemoryFileRefusal('.consolidate-lock')).toMatch(
      /^Refused: \.consolidate-lock .*MEMORY\.md/,
    );
  });
});
