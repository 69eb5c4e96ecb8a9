import { describe, expect, it } from 'vitest';
import { MEMORY_TYPES } from '../memdir/types.js';
import { MCP_SERVER_INSTRUCTIONS, MISSING_INPUT, TOOL_DESCRIPTIONS } from './prompts.js';

describe('MCP prompt texts', () => {
  it('describe every tool, leading with what it does', () => {
    expect(Object.keys(TOOL_DESCRIPTIONS).sort()).toEqual([
      'memory_audit',
      'memory_list',
      'memory_read',
      'memory_recall',
      'memory_revoke',
      'memory_save',
    ]);
    for (const description of Object.values(TOOL_DESCRIPTIONS)) {
      // First sentence is an action: a verb in the imperative, not "This tool…".
      expect(description).toMatch(/^(Find|Save|List|Read|Revoke|Check) /);
    }
  });

  it('state the write gate and the recall contract the server enforces', () => {
    for (const type of MEMORY_TYPES) expect(TOOL_DESCRIPTIONS.memory_save).toContain(type);
    expect(TOOL_DESCRIPTIONS.memory_save).toMatch(/\*\*Why:\*\*/);
    expect(TOOL_DESCRIPTIONS.memory_save).toMatch(/even when asked/);
    expect(TOOL_DESCRIPTIONS.memory_recall).toMatch(/zero memories/i);
    expect(TOOL_DESCRIPTIONS.memory_recall).toMatch(/verify/);
  });

  it('order the server instructions: what engram keeps, recall, save, verify', () => {
    const at = [
      'typed markdown memories',
      'memory_recall',
      'memory_save',
      'memory_revoke',
      'verify',
    ].map((s) => MCP_SERVER_INSTRUCTIONS.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('answer a missing save field the way the write gate does, naming what to send', () => {
    for (const field of ['type', 'name', 'description', 'body'] as const) {
      expect(MISSING_INPUT[field]).toMatch(new RegExp(`^Not saved\\. A memory needs a ${field}`));
    }
    for (const type of MEMORY_TYPES) expect(MISSING_INPUT.type).toContain(type);
    expect(MISSING_INPUT.body).toMatch(/\*\*Why:\*\*/);
  });
});
