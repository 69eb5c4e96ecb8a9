#!/usr/bin/env node
/** Bundle the inspector's page (ui/app.ts + ui/app.css) into dist/ui-assets: no CDN, works offline. */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(root, 'dist/ui-assets'), { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: ['ui/app.ts'],
  outfile: 'dist/ui-assets/app.js',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  logLevel: 'warning',
});
copyFileSync(join(root, 'ui/app.css'), join(root, 'dist/ui-assets/app.css'));
