/**
 * The layers of engram, lowest first; a module may import its own layer and the layers below it,
 * never one above. `npm test` runs this (`npm run lint:deps`). docs/architecture.md draws it.
 *
 *   doors          cli, mcp, hooks, memory-tool, ui        parse input, call the runtime, format output
 *   runtime        runtime, facade                         composes everything once
 *   orchestration  extract, session, dream, team, drift,   background work behind gates (and the
 *                  eval                                    quality harness the CLI serves)
 *   domain         recall, inject, instructions            what to show the model, and how much
 *   storage        memdir, llm, testing                    files on disk; model clients, forks and
 *                                                          the scripted model for tests
 *   base           config, util, confine                   settings, clock, errors, confinement
 *
 * The benchmark (bench) and the package root `src/index.ts` use everything and sit above the doors.
 * Tests (`*.test.ts`) may reach across layers; product code may not. A new folder under src/ must
 * be placed in a layer here, or `no-unlayered-folder` fails.
 */
const LAYERS = [
  ['base', ['config', 'util', 'confine']],
  ['storage', ['memdir', 'llm', 'testing']],
  ['domain', ['recall', 'inject', 'instructions']],
  ['orchestration', ['extract', 'session', 'dream', 'team', 'drift', 'eval']],
  ['runtime', ['runtime', 'facade']],
  ['doors', ['cli', 'mcp', 'hooks', 'memory-tool', 'ui']],
  ['tools', ['bench']],
];

const TESTS = '\\.test\\.ts$';

const folders = (layers) => `^src/(${layers.flatMap(([, f]) => f).join('|')})/`;

const forbidden = LAYERS.slice(0, -1).map(([name, own], i) => ({
  name: `${name}-imports-upward`,
  severity: 'error',
  comment: `${name} (${own.join(', ')}) may import only its own layer and the ones below it. Move the shared code down, or pass it in from above (see docs/architecture.md).`,
  from: { path: `^src/(${own.join('|')})/`, pathNot: TESTS },
  to: { path: folders(LAYERS.slice(i + 1)) },
}));

forbidden.push(
  {
    name: 'no-unlayered-folder',
    severity: 'error',
    comment:
      'Every folder under src/ belongs to a layer: add it to LAYERS in .dependency-cruiser.cjs (and to docs/architecture.md).',
    from: {
      path: '^src/[^/]+/',
      pathNot: `${folders(LAYERS)}|^src/index\\.ts$`,
    },
    to: {},
  },
  {
    name: 'no-unlayered-folder-imported',
    severity: 'error',
    comment:
      'Every folder under src/ belongs to a layer: add it to LAYERS in .dependency-cruiser.cjs (and to docs/architecture.md).',
    from: {},
    to: { path: '^src/[^/]+/', pathNot: folders(LAYERS) },
  },
  {
    name: 'nothing-imports-the-package-root',
    severity: 'error',
    comment: 'src/index.ts is the public entry; code inside engram imports the module it needs.',
    from: { path: '^src/', pathNot: '^src/index\\.ts$' },
    to: { path: '^src/index\\.ts$' },
  },
);

module.exports = {
  forbidden,
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)__fixtures__/' },
  },
};
