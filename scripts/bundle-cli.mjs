#!/usr/bin/env node
/**
 * Bundle the CLI into dist/cli/main.js (replacing tsc's copy; the library's modules stay tsc's
 * output for the package exports). A hook runs as a new process for every prompt, and resolving and
 * loading ~150 separate modules was most of its time. Packages stay external, so an SDK, commander
 * or yaml still loads only where the code asks for it; code splitting keeps the hook's chunk apart
 * from the full CLI's. The import graph is written to dist/cli/bundle/meta.json for the test that
 * checks what the hook entry loads.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Chunk names carry content hashes: drop the last build's, and tsc's map of the replaced entry.
rmSync(join(root, 'dist/cli/bundle'), { recursive: true, force: true });
rmSync(join(root, 'dist/cli/main.js.map'), { force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/cli',
  // Same depth as dist/cli/commands, so paths the commands resolve from their own file still hold.
  chunkNames: 'bundle/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
});
writeFileSync(join(root, 'dist/cli/bundle/meta.json'), JSON.stringify(result.metafile));
