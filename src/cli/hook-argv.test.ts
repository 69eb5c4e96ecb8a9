import { describe, expect, it } from 'vitest';
import { parseLeanHookArgv } from './hook-argv.js';

describe('parseLeanHookArgv', () => {
  it('reads `hook <event>` with the options the hook command declares', () => {
    expect(
      parseLeanHookArgv([
        'hook',
        'user-prompt-submit',
        '--dir',
        'mem',
        '--memory-dir=~/m',
        '--cwd',
        '/p',
        '--budget-ms',
        '800',
        '--no-model',
        '--json',
      ]),
    ).toEqual({
      event: 'user-prompt-submit',
      options: {
        dir: 'mem',
        memoryDir: '~/m',
        cwd: '/p',
        budgetMs: '800',
        model: false,
        json: true,
      },
    });
    expect(parseLeanHookArgv(['hook', 'stop', '--wait', '--input', 'f.json'])).toEqual({
      event: 'stop',
      options: { wait: true, input: 'f.json' },
    });
    // The last one wins, as with commander.
    expect(parseLeanHookArgv(['hook', 'stop', '--dir', 'a', '--dir', 'b'])?.options.dir).toBe('b');
  });

  it('leaves everything else to the full CLI', () => {
    for (const argv of [
      [],
      ['list'],
      ['hook'],
      ['hook', 'install'],
      ['hook', 'no-such-event'],
      ['--dir', 'x', 'hook', 'stop'],
      ['hook', 'stop', '--help'],
      ['hook', 'stop', '-h'],
      ['hook', 'stop', '--model'],
      ['hook', 'stop', '--dir'],
      ['hook', 'stop', '--dir', '--json'],
      ['hook', 'stop', 'extra'],
    ]) {
      expect(parseLeanHookArgv(argv), argv.join(' ')).toBeUndefined();
    }
  });
});
