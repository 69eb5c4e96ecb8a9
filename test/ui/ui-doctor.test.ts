import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveMemory } from '../../src/memdir/index.js';
import { createEngram } from '../../src/runtime/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { uiFixture } from './ui-fixture.js';

const TOKEN = 'test-token-0123456789';
const HOST = '127.0.0.1:4567';

interface Finding {
  kind: string;
  severity: string;
  file?: string;
  layer?: string;
  message: string;
  fix: string;
}

describe("the inspector's doctor", () => {
  it('diagnoses with the settings files and the user layer, as engram doctor does', async () => {
    const f = await uiFixture();
    const engramHome = join(f.home, '.engram');
    const userDir = join(engramHome, 'user', 'memory');
    await mkdir(userDir, { recursive: true });
    await saveMemory(userDir, {
      type: 'user',
      name: 'vim keys',
      description: 'The user edits with vim key bindings in every editor',
      body: 'Use vim key bindings.',
    });
    await saveMemory(userDir, {
      type: 'reference',
      name: 'lisbon offsite',
      description: 'Notes from the team offsite in lisbon',
      body: 'See the offsite notes.',
    });
    const settingsFile = join(engramHome, 'settings.json');
    await writeFile(settingsFile, JSON.stringify({ recallDecay: { halfLifeDays: { user: -5 } } }));
    const engram = createEngram({
      cwd: f.project,
      memoryDir: f.dir,
      env: { ENGRAM_HOME: engramHome },
      homedir: f.home,
    });
    // One recall picks the vim memory from the user layer: its log now holds a recall.
    const recalled = await engram.recall({ query: 'which vim key bindings in the editor' });
    expect(recalled.selected.map((m) => m.file)).toContain('vim-keys.md');

    const app = createUiApp({ engram, token: TOKEN, port: 4567 });
    const res = await app.request(`http://${HOST}/api/doctor`, {
      headers: { host: HOST, 'x-engram-token': TOKEN },
    });
    expect(res.status).toBe(200);
    const report = (await res.json()) as {
      findings: Finding[];
      summary: { recallLog: { layers: Array<{ layer: string; dir: string }> } };
    };
    const setting = report.findings.filter((x) => x.kind === 'invalid_setting');
    expect(setting).toHaveLength(1);
    expect(setting[0]!.message).toContain('recallDecay.halfLifeDays.user');
    expect(setting[0]!.message).toContain(settingsFile);
    const never = report.findings.filter((x) => x.kind === 'never_recalled' && x.layer === 'user');
    expect(never.map((x) => x.file)).toEqual(['lisbon-offsite.md']);
    expect(report.summary.recallLog.layers.map((l) => [l.layer, l.dir])).toEqual([
      ['project', f.dir],
      ['user', userDir],
    ]);
  });
});
