import type { Command } from 'commander';
import { EngramError } from '../../util/errors.js';
import { markHostProcess } from '../../util/process-kind.js';
import { type CommonOptions, runtimeFor, withCommonOptions } from '../common.js';
import type { CliIo } from '../io.js';

export function registerUiCommands(program: Command, io: CliIo): void {
  withCommonOptions(program.command('ui'))
    .description(
      'serve a local web inspector on 127.0.0.1 (prints its URL with a one-time token first); runs until interrupted',
    )
    .option('--port <port>', 'port to listen on (default: a free one)', '0')
    .option('--open', 'open the page in the default browser')
    .action(async (opts: CommonOptions & { port: string; open?: boolean }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new EngramError('invalid_input', '--port needs a port number (0-65535)');
      markHostProcess(); // a server: its loop keeps turning while files are read
      const engram = runtimeFor(io, opts, { model: true });
      // Lazy: the UI's server and Hono load only for this command, never on the hook path.
      const { startUi } = await import('../../ui/server.js');
      const ui = await startUi({ engram, port });
      io.stdout(`${ui.url}\n`);
      if (opts.open) {
        const { spawn } = await import('node:child_process');
        const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
        spawn(opener, [ui.url], { stdio: 'ignore', detached: true })
          .on('error', () => io.stderr('engram: could not open a browser; open the URL above.\n'))
          .unref();
      }
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void ui.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
