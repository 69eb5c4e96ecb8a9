#!/usr/bin/env node
/**
 * Bundle the CLI into dist/cli/main.js (replacing tsc's copy; the library's modules stay tsc's
 * output for the package exports). A hook runs as a new process for every prompt, and resolving and
 * loading ~150 separate modules was most of its time. Packages stay external, so an SDK, commander
 * or yaml still loads only where the code asks for it; code splitting keeps the hook's chunk apart
 * from the full CLI's. The import graph is written to dist/cli/bundle/meta.json for the test that
 * checks what the hook entry loads.
 *
 * The hook runner is also bundled on its own, as one CommonJS file (dist/cli/bundle/hook.cjs) that
 * `main.js` compiles with V8's code cache (src/cli/code-cache.ts): one file to read, nothing to
 * resolve, and after the first run nothing to compile. It also holds the warm hook server. Its packages stay external too (required
 * when used), except the stemmer: it is on every prompt's path and ships only as an ES module.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Chunk names carry content hashes: drop the last build's, and tsc's map of the replaced entry.
rmSync(join(root, 'dist/cli/bundle'), { recursive: true, force: true });
rmSync(join(root, 'dist/cli/main.js.map'), { force: true });
const result = await build({
  absWorkingDir: root,
  // The worker a host's first build runs in (src/recall/first-build.ts) sits in bundle/, beside the
  // chunk that starts it: that chunk finds it next to its own URL, as tsc's output does.
  entryPoints: {
    main: 'src/cli/main.ts',
    'bundle/first-build-worker': 'src/recall/first-build-worker.ts',
  },
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
for (const [file, out] of Object.entries(result.metafile.outputs)) {
  if ('src/recall/first-build.ts' in out.inputs && dirname(file) !== 'dist/cli/bundle')
    throw new Error(
      `${file}: the first-build worker's starter must be bundled into dist/cli/bundle`,
    );
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const INLINED = new Set(['stemmer']);
const hook = await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/hook-bundle.ts'],
  outfile: 'dist/cli/bundle/hook.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external: [
    ...Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.devDependencies }),
  ].filter((name) => !INLINED.has(name)),
  // `import()` inside a vm.Script needs an experimental Node flag: packages loaded on demand are
  // required instead (every optional one ships CommonJS), and our own modules are inlined.
  supported: { 'dynamic-import': false },
  // The loader passes the bundle's own URL, so paths our modules resolve from it still hold.
  define: { 'import.meta.url': '__engramBundleUrl' },
  charset: 'ascii',
  metafile: true,
  logLevel: 'warning',
});
writeFileSync(join(root, 'dist/cli/bundle/hook-meta.json'), JSON.stringify(hook.metafile));

// The lean hook entry the plugin runs (dist/cli/hook.cjs): the hook client alone, as CommonJS
// (Node starts an ES module entry a third slower). Its fallback loads the runner bundle above.
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/hook-main.ts'],
  outfile: 'dist/cli/hook.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
rmSync(join(root, 'dist/cli/hook-main.js'), { force: true });
rmSync(join(root, 'dist/cli/hook-main.js.map'), { force: true });
rmSync(join(root, 'dist/cli/hook-main.d.ts'), { force: true });

// Pure ASCII, so the loader reads it as one-byte text (V8 would otherwise decode the whole file
// into a two-byte string). esbuild escapes strings but not regular expression literals; a
// character there means the same written as \uXXXX, unless it was escaped itself.
const hookFile = join(root, 'dist/cli/bundle/hook.cjs');
const text = readFileSync(hookFile, 'utf8');
if (/\\[^\x00-\x7f]/.test(text)) throw new Error('hook.cjs: an escaped non-ASCII character');
writeFileSync(
  hookFile,
  text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
);
