import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createFileTools,
  FILE_TOOL_DEFINITIONS,
  runForkedAgent,
  singleFileSandbox,
} from 'engram/llm';
import { scriptedModel } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { escapeScenario, fresh, mainConversation, SYSTEM, startServer } from './support.js';

describe('the sandbox, refusals as tool errors', () => {
  it('Anthropic: outside write, ../, symlink out and delete are refused; the loop goes on', () =>
    escapeScenario('anthropic'));
  it('OpenAI-compatible: the same scenario', () => escapeScenario('openai'));

  it('a canUseTool written as a predicate (true/false) is honoured, fail closed', async () => {
    const server = await startServer();
    const memory = await fresh('predicate');
    server.push(
      { toolUse: [{ name: 'write', input: { path: 'a.md', content: 'x' } }] },
      { toolUse: [{ name: 'list', input: { path: '.' } }] },
      { toolUse: [{ name: 'edit', input: { path: 'a.md', old_string: 'x', new_string: 'y' } }] },
      { text: 'fim' },
    );
    const result = await runForkedAgent({
      model: scriptedModel(server),
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages: mainConversation() },
      prompt: 'Tente.',
      tools: createFileTools(memory),
      // write: false; list: true; edit: a forgotten return (undefined) must not allow.
      canUseTool: ((name: string) =>
        name === 'write' ? false : name === 'list' ? true : undefined) as never,
      maxTurns: 6,
    });
    expect(result.status).toBe('completed');
    expect(result.toolCalls.map((c) => [c.name, c.allowed])).toEqual([
      ['write', false],
      ['list', true],
      ['edit', false],
    ]);
    expect(await readdir(memory)).toEqual([]);
  });

  it('built-in tools: read with line numbers, unique-match edit, list, grep', async () => {
    const dir = await fresh('tools');
    await writeFile(join(dir, 'colheita.md'), 'milho\nfeijão\nmilho\n');
    const t = Object.fromEntries(createFileTools(dir).map((x) => [x.definition.name, x]));
    const read = await t.read?.execute({ path: 'colheita.md' }, {});
    expect(read?.content).toMatch(/^\s*1\s+milho\n\s*2\s+feijão/);
    const ambiguous = await t.edit?.execute(
      { path: 'colheita.md', old_string: 'milho', new_string: 'trigo' },
      {},
    );
    expect(ambiguous?.isError).toBe(true);
    await t.edit?.execute({ path: 'colheita.md', old_string: 'feijão', new_string: 'arroz' }, {});
    expect(await readFile(join(dir, 'colheita.md'), 'utf8')).toBe('milho\narroz\nmilho\n');
    expect((await t.list?.execute({ path: '.' }, {}))?.content).toContain('colheita.md');
    expect((await t.grep?.execute({ pattern: 'milho' }, {}))?.content).toMatch(/colheita\.md:3/);
  });

  it('"edit only file F": another file in the same folder is refused', async () => {
    const dir = await fresh('single');
    const notes = join(dir, 'notas.md');
    await writeFile(notes, '# notas\n');
    const allow = singleFileSandbox(notes);
    expect((await allow('edit', { path: notes, old_string: 'a', new_string: 'b' })).behavior).toBe(
      'allow',
    );
    expect((await allow('write', { path: join(dir, 'outra.md'), content: 'x' })).behavior).toBe(
      'deny',
    );
    // Reads are confined too: the file's folder (and any read roots), never /etc.
    expect((await allow('read', { path: '/etc/hostname' })).behavior).toBe('deny');
    expect((await allow('read', { path: notes })).behavior).toBe('allow');
  });
});
