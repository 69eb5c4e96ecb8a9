import { describe, expect, it } from 'vitest';
import { parseLeanMcpArgv } from './mcp-argv.js';

describe('parseLeanMcpArgv', () => {
  it('reads `mcp` with the options the mcp command declares', () => {
    expect(
      parseLeanMcpArgv(['mcp', '--dir', 'mem', '--memory-dir=~/m', '--cwd', '/p', '--no-model']),
    ).toEqual({ dir: 'mem', memoryDir: '~/m', cwd: '/p', model: false });
    expect(parseLeanMcpArgv(['mcp'])).toEqual({});
    expect(parseLeanMcpArgv(['mcp', '--json'])).toEqual({ json: true });
    // The last one wins, as with commander.
    expect(parseLeanMcpArgv(['mcp', '--dir', 'a', '--dir', 'b'])?.dir).toBe('b');
  });

  it('leaves everything else to the full CLI', () => {
    for (const argv of [
      [],
      ['list'],
      ['--dir', 'x', 'mcp'],
      ['mcp', '--help'],
      ['mcp', '-h'],
      ['mcp', '--model'],
      ['mcp', '--dir'],
      ['mcp', '--dir', '--no-model'],
      ['mcp', 'extra'],
    ]) {
      expect(parseLeanMcpArgv(argv), argv.join(' ')).toBeUndefined();
    }
  });
});
