import { isAbsolute, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';
import type { InstructionsResult, LoadedInstructionFile } from './types.js';

/**
 * The conditional rules (and the files they include) that apply when the agent touches
 * `targetPath`. Globs are gitignore-style and relative to the folder holding `.claude/` (the
 * working directory for user rules); a target outside that folder matches nothing. Pure.
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
    return ignore().add(rule.globs).ignores(rel.split(sep).join('/'));
  });
}
