import { describe, expect, it } from 'vitest';
import {
  agentMemoryChain,
  agentNameProblem,
  mentionedAgents,
  validateAgentName,
} from './agent-memory.js';

describe('agent names', () => {
  it('accept one plain path segment and refuse everything else', () => {
    for (const ok of ['reviewer', 'code-reviewer', 'Explore', 'my-plugin:auditor', 'v2.agent']) {
      expect(agentNameProblem(ok), ok).toBeUndefined();
    }
    for (const bad of [
      '',
      '.',
      '..',
      '../x',
      'x/y',
      'a\\b',
      'a\0b',
      '.git',
      'a\nb',
      'nul',
      'x.',
      'x'.repeat(200),
    ]) {
      expect(agentNameProblem(bad), JSON.stringify(bad)).toBeDefined();
    }
    expect(() => validateAgentName('a\0b')).toThrow(/invalid agent name/);
  });

  it('an agent chain is its local, project and user folders, each named for the agent', () => {
    const chain = agentMemoryChain({ engramHome: '/h/.engram', projectRoot: '/p' }, 'reviewer');
    expect(chain).toEqual([
      {
        layer: 'agent:reviewer/local',
        dir: '/p/.engram/agent-memory-local/reviewer',
        trusted: true,
        scope: 'local',
      },
      {
        layer: 'agent:reviewer/project',
        dir: '/p/.engram/agent-memory/reviewer',
        trusted: true,
        scope: 'project',
      },
      {
        layer: 'agent:reviewer/user',
        dir: '/h/.engram/agent-memory/reviewer',
        trusted: true,
        scope: 'user',
      },
    ]);
  });

  it('@mentions: names at a word start, not files, paths or e-mail addresses', () => {
    expect(mentionedAgents('@reviewer please look, then ask (@planner).')).toEqual([
      'reviewer',
      'planner',
    ]);
    expect(mentionedAgents('read @src/db.ts and mail bob@example.com')).toEqual([]);
    expect(mentionedAgents('@reviewer: and @reviewer again')).toEqual(['reviewer']);
  });
});
