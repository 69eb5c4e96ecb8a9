import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import { parseHookInput } from './input.js';
import { capHookContext, contextOutput, HOOK_CONTEXT_MAX_CHARS } from './output.js';
import { isEngramHook, withEngramHooks, withoutEngramHooks } from './settings.js';
import { historyForRecall, hookContextsIn } from './transcript.js';

const text = (id: string, role: 'user' | 'assistant', t: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: t }],
});

describe('parseHookInput', () => {
  it('maps the documented fields and keeps the rest', () => {
    const input = parseHookInput(
      JSON.stringify({
        session_id: 'abc123',
        transcript_path: '/x.jsonl',
        cwd: '/p',
        hook_event_name: 'Stop',
        stop_hook_active: true,
        last_assistant_message: 'done',
        background_tasks: [],
      }),
    );
    expect(input).toMatchObject({
      sessionId: 'abc123',
      transcriptPath: '/x.jsonl',
      cwd: '/p',
      hookEventName: 'Stop',
      stopHookActive: true,
      lastAssistantMessage: 'done',
    });
    expect(input.raw.background_tasks).toEqual([]);
    expect(parseHookInput('  ')).toEqual({ raw: {} });
    expect(() => parseHookInput('[1]')).toThrow(/JSON object/);
  });
});

describe('capHookContext', () => {
  it('never exceeds the limit, cuts at a line, and says what was left out', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 300 }), { maxLength: 200 }),
        fc.integer({ min: 200, max: 5000 }),
        (lines, max) => {
          const input = lines.join('\n');
          const out = capHookContext(input, max, 'read MEMORY.md');
          expect(out.length).toBeLessThanOrEqual(max);
          if (input.length <= max) expect(out).toBe(input);
          else expect(out).toMatch(/more characters not shown/);
        },
      ),
    );
  });

  it('wraps context in the hook JSON shape, and is empty for nothing', () => {
    expect(contextOutput('UserPromptSubmit', '')).toEqual({});
    const out = contextOutput('SessionStart', 'x'.repeat(20_000));
    expect(out.hookSpecificOutput?.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput?.additionalContext.length).toBeLessThanOrEqual(
      HOOK_CONTEXT_MAX_CHARS,
    );
  });
});

describe('hook settings merge', () => {
  it('recognises only engram hook commands', () => {
    expect(isEngramHook({ type: 'command', command: 'engram hook stop' })).toBe(true);
    expect(
      isEngramHook({
        type: 'command',
        command: 'node /x/engram/dist/cli/main.js hook user-prompt-submit',
      }),
    ).toBe(true);
    expect(isEngramHook({ type: 'command', command: 'my-hook stop' })).toBe(false);
    expect(isEngramHook({ type: 'command', command: 'engram recall' })).toBe(false);
  });

  it('install then uninstall gives back the settings, for any other hooks', () => {
    const handler = fc.record({ type: fc.constant('command'), command: fc.string() });
    const group = fc.record({
      matcher: fc.string(),
      hooks: fc.array(handler, { minLength: 1, maxLength: 3 }),
    });
    const settings = fc.record({
      model: fc.string(),
      hooks: fc.dictionary(
        fc.constantFrom('SessionStart', 'Stop', 'PreToolUse', 'Notification'),
        fc.array(group, { minLength: 1, maxLength: 2 }),
      ),
    });
    fc.assert(
      fc.property(settings, (s) => {
        fc.pre(!JSON.stringify(s).includes('engram'));
        const installed = withEngramHooks(s, 'engram');
        expect(withEngramHooks(installed, 'engram')).toEqual(installed);
        const back = withoutEngramHooks(installed);
        expect(back).toEqual(Object.keys(s.hooks).length === 0 ? { model: s.model } : s);
      }),
    );
  });
});

describe('hook transcript helpers', () => {
  it('counts recalled memories stored in meta user lines (older Claude Code), not other meta lines', () => {
    const injection =
      '<system-reminder>\n<recalled-memories>\n<memory file="a.md">x</memory>\n</recalled-memories>\n</system-reminder>';
    const jsonl = [
      JSON.stringify({ type: 'user', isMeta: true, message: { role: 'user', content: injection } }),
      JSON.stringify({
        type: 'user',
        isMeta: true,
        message: { role: 'user', content: [{ type: 'text', text: injection }] },
      }),
      JSON.stringify({
        type: 'user',
        isMeta: true,
        message: { role: 'user', content: 'skill text, no memories' },
      }),
      // A plain user line reaches recall as a message; it is not counted twice.
      JSON.stringify({ type: 'user', message: { role: 'user', content: `quoted: ${injection}` } }),
    ].join('\n');
    expect(hookContextsIn(jsonl)).toEqual([injection, injection]);
  });

  it('reads hook_additional_context attachments and puts them first for recall', () => {
    const jsonl = [
      JSON.stringify({
        type: 'attachment',
        attachment: { type: 'hook_additional_context', content: ['ctx a', 'ctx b'] },
      }),
      JSON.stringify({
        type: 'attachment',
        attachment: { type: 'hook_success', content: 'hook_additional_context' },
      }),
      '{"type":"attachment","attachment":{"type":"hook_additional_context","content":"trunc',
    ].join('\n');
    expect(hookContextsIn(jsonl)).toEqual(['ctx a', 'ctx b']);
    // After a compaction the model no longer sees what hooks added before it: recall may repeat it.
    const compacted = [
      jsonl,
      JSON.stringify({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'auto', preTokens: 160_000 },
      }),
      JSON.stringify({
        type: 'attachment',
        attachment: { type: 'hook_additional_context', content: ['ctx c'] },
      }),
    ].join('\n');
    expect(hookContextsIn(compacted)).toEqual(['ctx c']);
    const history = historyForRecall({
      messages: [text('u1', 'user', 'hi')],
      hookContexts: ['ctx'],
      warnings: [],
      exists: true,
    });
    expect(history.map((m) => m.id)).toEqual(['engram-hook-contexts', 'u1']);
  });
});
