import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configuredModel } from './common.js';
import { testIo } from './test-io.js';

describe('configuredModel', () => {
  it('says no model when nothing is configured', () => {
    const resolution = configuredModel(testIo(), {});
    expect(resolution.ok).toBe(false);
  });

  it('takes the model name from settings and the endpoint from the environment', () => {
    const io = testIo();
    const home = io.env.ENGRAM_HOME!;
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ model: 'openai:local-model' }));
    const withUrl = { ...io, env: { ...io.env, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } };
    const resolution = configuredModel(withUrl, {});
    expect(resolution.ok && resolution.model.modelId).toBe('local-model');
    const overridden = configuredModel(
      { ...withUrl, env: { ...withUrl.env, ENGRAM_MODEL: 'openai:env-model' } },
      {},
    );
    expect(overridden.ok && overridden.model.modelId).toBe('env-model');
  });
});
