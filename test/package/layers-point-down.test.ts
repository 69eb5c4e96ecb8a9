/**
 * Dependencies point down the layers (doors → runtime → orchestration → domain → storage → base),
 * checked by dependency-cruiser with the repository's own rules: the source passes, and a layer
 * importing upward (even a type), or an unlayered folder, fails.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, tempRoot } from '../support/cli-process.js';

const run = promisify(execFile);
const DEPCRUISE = join(REPO, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const temp = await tempRoot('engram-layers-');
afterAll(() => temp.cleanup());

async function cruise(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [DEPCRUISE, 'src', '--config', join(REPO, '.dependency-cruiser.cjs'), '--output-type', 'err'],
      { cwd },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

/** A miniature source tree laid out like engram's, to try rules on. */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await temp.fresh('tree');
  await writeFile(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }),
  );
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('layers point down', () => {
  it("engram's own source has no dependency violations", { timeout: 120_000 }, async () => {
    const result = await cruise(REPO);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/no dependency violations/);
  });

  it('storage importing the runtime fails, even for a type; the runtime importing storage passes', {
    timeout: 120_000,
  }, async () => {
    const root = await tree({
      'src/runtime/engram.ts':
        "import { save } from '../memdir/save.js';\nexport const run = () => save();\n",
      'src/memdir/save.ts': 'export const save = () => 1;\n',
      'src/memdir/leak.ts':
        "import type { Engram } from '../runtime/types.js';\nexport type Handle = Engram;\n",
      'src/runtime/types.ts': 'export interface Engram { memoryDir: string }\n',
    });
    const result = await cruise(root);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(
      /storage-imports-upward: src\/memdir\/leak\.ts → src\/runtime\/types\.ts/,
    );
    expect(result.output).not.toMatch(/src\/runtime\/engram\.ts/);
  });

  it('orchestration importing a door fails; a folder no layer names fails', {
    timeout: 120_000,
  }, async () => {
    const root = await tree({
      'src/extract/fork.ts':
        "import { handle } from '../memory-tool/handler.js';\nexport const f = handle;\n",
      'src/memory-tool/handler.ts': 'export const handle = 1;\n',
      'src/util/x.ts': "import { y } from '../gadgets/y.js';\nexport const x = y;\n",
      'src/gadgets/y.ts': 'export const y = 2;\n',
    });
    const result = await cruise(root);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/orchestration-imports-upward: src\/extract\/fork\.ts/);
    expect(result.output).toMatch(/no-unlayered-folder/);
  });
});
