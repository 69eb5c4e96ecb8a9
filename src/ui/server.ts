/**
 * `engram ui`: serve the inspector on 127.0.0.1 until SIGINT/SIGTERM. Loaded only by that command.
 */
import { serve } from '@hono/node-server';
import type { Engram } from '../runtime/index.js';
import { createUiApp } from './app.js';
import { newUiToken } from './security.js';

export interface RunningUi {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startUi(options: { engram: Engram; port?: number }): Promise<RunningUi> {
  const token = newUiToken();
  let port = options.port ?? 0;
  const holder: { app?: ReturnType<typeof createUiApp> } = {};
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      { fetch: (req) => holder.app!.fetch(req), hostname: '127.0.0.1', port },
      (info) => {
        port = info.port;
        holder.app = createUiApp({ engram: options.engram, token, port });
        resolve(s);
      },
    );
    s.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
