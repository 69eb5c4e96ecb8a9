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
export function rulesFor(
  targetPath: string,
  result: Pick<InstructionsResult, 'cwd' | 'conditionalRules'>,
): LoadedInstructionFile[] {
  const target = resolve(result.cwd, targetPath);
  return result.conditionalRules.filter((rule) => {
    if (!rule.globs || !rule.baseDir) return false;
    const rel = relative(rule.baseDir, target);
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return false;
    return matcherFor(rule, rule.globs).ignores(rel.split(sep).join('/'));
  });
}
