import { describe, expect, it } from 'vitest';
import type { SettingsFile } from '../config/index.js';
import { DEFAULT_INSTRUCTION_FILES } from './constants.js';
import { resolveInstructionSettings } from './instruction-settings.js';

const file = (source: SettingsFile['source'], data: Record<string, unknown>): SettingsFile => ({
  source,
  path: `/settings/${source}.json`,
  exists: true,
  data,
});

describe('resolveInstructionSettings', () => {
  it('defaults to both conventions, no excludes, no external includes', () => {
    const { settings, reports } = resolveInstructionSettings([], '/h');
    expect(settings.fileNames).toEqual([...DEFAULT_INSTRUCTION_FILES]);
    expect(settings.excludes).toEqual([]);
    expect(settings.allowExternalIncludes).toBe(false);
    expect(reports).toEqual([]);
  });

  it('lets managed settings override the user, adds excludes up, expands ~/', () => {
    const { settings } = resolveInstructionSettings(
      [
        file('user', {
          instructionFiles: ['AGENTS.md'],
          instructionExcludes: ['~/old/**'],
          allowExternalIncludes: ['~/notes', '/opt/team'],
        }),
        file('policy', {
          instructionFiles: ['CLAUDE.md'],
          instructionExcludes: ['**/x/**'],
          claudeMdExcludes: ['**/legacy/**'],
        }),
      ],
      '/h',
    );
    expect(settings.fileNames).toEqual(['CLAUDE.md']);
    expect(settings.excludes).toEqual(['/h/old/**', '**/x/**', '**/legacy/**']);
    expect(settings.allowExternalIncludes).toEqual(['/h/notes', '/opt/team']);
  });

  it('ignores the keys in project and local settings, with a warning each', () => {
    const { settings, reports } = resolveInstructionSettings(
      [
        file('project', { allowExternalIncludes: true }),
        file('local', { instructionExcludes: ['**'] }),
      ],
      '/h',
    );
    expect(settings.allowExternalIncludes).toBe(false);
    expect(settings.excludes).toEqual([]);
    expect(reports.map((r) => r.path)).toEqual(['/settings/project.json', '/settings/local.json']);
  });

  it('reports invalid values and keeps the previous ones', () => {
    const { settings, reports } = resolveInstructionSettings(
      [
        file('user', {
          instructionFiles: ['../escape.md'],
          instructionExcludes: 'not-a-list',
          allowExternalIncludes: ['relative/dir', '~/ok'],
        }),
      ],
      '/h',
    );
    expect(settings.fileNames).toEqual([...DEFAULT_INSTRUCTION_FILES]);
    expect(settings.excludes).toEqual([]);
    expect(settings.allowExternalIncludes).toEqual(['/h/ok']);
    expect(reports).toHaveLength(3);
    expect(reports.every((r) => r.severity === 'warning' && r.kind === 'settings')).toBe(true);
  });
});
