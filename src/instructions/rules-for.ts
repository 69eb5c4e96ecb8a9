import { isAbsolute, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { InstructionsResult, LoadedInstructionFile } from './types.js';

// Hosts call rulesFor on every file the agent touches; compile each rule's globs once.
const matchers = new WeakMap<LoadedInstructionFile, Ignore>();

function matcherFor(rule: LoadedInstructionFile, globs: string[]): Ignore {
  let matcher = matchers.get(rule);
  if (!matcher) {
    matcher = ignore().add(globs);
    matchers.set(rule, matcher);
  }
  return matcher;
}

/**
 * The conditional rules (and the files they include) that apply when the agent touches
 * `targetPath` (absolute, or relative to the working directory). Globs are gitignore-style and
 * relative to the folder holding `.claude/` (the working directory for user rules); a target
 * outside that folder matches nothing. No I/O.
 */
type RulesSource = Pick<InstructionsResult, 'cwd' | 'conditionalRules'>;

export function rulesFor(targetPath: string, result: RulesSource): LoadedInstructionFile[];
export function rulesFor(result: RulesSource, targetPath: string): LoadedInstructionFile[];
export function rulesFor(
  a: string | RulesSource,
  b: string | RulesSource,
): LoadedInstructionFile[] {
  // Either order: callers read it as "rules for <file>" or as "the result's rules for <file>".
  const [targetPath, result] = typeof a === 'string' ? [a, b as RulesSource] : [b as string, a];
  if (typeof targetPath !== 'string' || !result || !Array.isArray(result.conditionalRules)) {
    throw new TypeError('rulesFor(targetPath, result): pass the result of loadInstructions');
  }
  const target = resolve(result.cwd, targetPath);
  // One file can be a rule with its own globs and an include of another rule: return it once.
  const returned = new Set<string>();
  return result.conditionalRules.filter((rule) => {
    if (!rule.globs || !rule.baseDir || returned.has(rule.realPath)) return false;
    const rel = relative(rule.baseDir, target);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
    const applies = matcherFor(rule, rule.globs).ignores(rel.split(sep).join('/'));
    if (applies) returned.add(rule.realPath);
    return applies;
  });
}
