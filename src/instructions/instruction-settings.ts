/**
 * The settings that shape instruction loading. They are read only from user settings
 * (`$ENGRAM_HOME/settings.json`) and managed settings (`<managed dir>/settings.json`): a cloned
 * repository's committed settings must not be able to widen what its own files may include.
 */
import { isAbsolute, join, normalize } from 'node:path';
import type { SettingsFile } from '../config/index.js';
import {
  ALLOW_EXTERNAL_INCLUDES_KEY,
  CLAUDE_MD_EXCLUDES_KEY,
  DEFAULT_INSTRUCTION_FILES,
  INSTRUCTION_EXCLUDES_KEY,
  INSTRUCTION_FILES_KEY,
} from './constants.js';
import type { InstructionReport } from './types.js';

export interface InstructionSettings {
  /** Per-directory names to read, e.g. `AGENTS.md`, `.claude/rules`. */
  fileNames: string[];
  /** Globs (picomatch) over absolute paths; match → user/project/local file not loaded. */
  excludes: string[];
  /** `true`: includes may go anywhere; a list: these folders are allowed as well. */
  allowExternalIncludes: boolean | string[];
}

export const DEFAULT_INSTRUCTION_SETTINGS: InstructionSettings = {
  fileNames: [...DEFAULT_INSTRUCTION_FILES],
  excludes: [],
  allowExternalIncludes: false,
};

const KEYS = [
  INSTRUCTION_FILES_KEY,
  INSTRUCTION_EXCLUDES_KEY,
  CLAUDE_MD_EXCLUDES_KEY,
  ALLOW_EXTERNAL_INCLUDES_KEY,
];

/** Merge user then managed settings (managed wins; excludes add up). Invalid values are reported. */
export function resolveInstructionSettings(
  files: readonly SettingsFile[],
  homedir: string,
): { settings: InstructionSettings; reports: InstructionReport[] } {
  const reports: InstructionReport[] = [];
  const settings: InstructionSettings = {
    ...DEFAULT_INSTRUCTION_SETTINGS,
    fileNames: [...DEFAULT_INSTRUCTION_SETTINGS.fileNames],
    excludes: [],
  };
  const report = (file: SettingsFile, message: string) =>
    reports.push({ kind: 'settings', severity: 'warning', path: file.path, message });
  for (const source of ['project', 'local'] as const) {
    const file = files.find((f) => f.source === source);
    for (const key of KEYS) {
      if (file && key in file.data)
        report(
          file,
          `Ignoring "${key}" in ${source} settings ${file.path}: only user or managed settings may shape which instruction files load.`,
        );
    }
  }
  for (const source of ['user', 'policy'] as const) {
    const file = files.find((f) => f.source === source);
    if (!file) continue;
    const names = file.data[INSTRUCTION_FILES_KEY];
    if (names !== undefined) {
      const parsed = parseFileNames(names);
      if (parsed) settings.fileNames = parsed;
      else
        report(
          file,
          `"${INSTRUCTION_FILES_KEY}" must be a list of relative file names such as "AGENTS.md"; using the previous value.`,
        );
    }
    // Claude Code's name for the same setting, so a user's existing list carries over.
    for (const key of [INSTRUCTION_EXCLUDES_KEY, CLAUDE_MD_EXCLUDES_KEY]) {
      const excludes = file.data[key];
      if (excludes === undefined) continue;
      if (isStringList(excludes))
        settings.excludes.push(...excludes.map((p) => expandHome(p, homedir)));
      else report(file, `"${key}" must be a list of glob patterns; ignored.`);
    }
    const allow = file.data[ALLOW_EXTERNAL_INCLUDES_KEY];
    if (allow !== undefined) {
      const parsed = parseAllow(allow, homedir);
      if (parsed.value !== undefined) settings.allowExternalIncludes = parsed.value;
      for (const problem of parsed.problems) report(file, problem);
    }
  }
  return { settings, reports };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v.trim() !== '');
}

function parseFileNames(value: unknown): string[] | undefined {
  if (!isStringList(value)) return undefined;
  const names = value.map((v) => v.trim().replace(/\/+$/, ''));
  const unsafe = names.some(
    (n) => isAbsolute(n) || n.includes('\0') || normalize(n).split(/[\\/]/).includes('..'),
  );
  return unsafe ? undefined : [...new Set(names)];
}

function parseAllow(
  value: unknown,
  homedir: string,
): { value?: boolean | string[]; problems: string[] } {
  if (typeof value === 'boolean') return { value, problems: [] };
  if (!isStringList(value))
    return {
      problems: [
        `"${ALLOW_EXTERNAL_INCLUDES_KEY}" must be true, false or a list of folders; ignored.`,
      ],
    };
  const problems: string[] = [];
  const dirs: string[] = [];
  for (const entry of value) {
    const expanded = expandHome(entry.trim(), homedir);
    if (isAbsolute(expanded)) dirs.push(normalize(expanded));
    else
      problems.push(
        `"${ALLOW_EXTERNAL_INCLUDES_KEY}" entry "${entry}" is not absolute or ~/...; ignored.`,
      );
  }
  return { value: dirs, problems };
}

export function expandHome(pattern: string, homedir: string): string {
  if (pattern === '~') return homedir;
  return pattern.startsWith('~/') ? join(homedir, pattern.slice(2)) : pattern;
}
