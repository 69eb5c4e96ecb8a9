import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { env, MAIN, root } from './support.js';

describe('engram mcp over a real stdio child process (official SDK client)', () => {
  it('lists tools, saves (and refuses a bad save as a tool error), recalls, revokes', async () => {
    const dir = join(root, 'mcp-memory');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, 'mcp', '--dir', dir],
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'acceptance', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual([
        'memory_audit',
        'memory_list',
        'memory_read',
        'memory_recall',
        'memory_revoke',
        'memory_save',
      ]);

      const noDescription = await client.callTool({
        name: 'memory_save',
        arguments: {
          type: 'reference',
          name: 'Grafana board',
          description: '',
          body: 'https://grafana.example/d/billing',
        },
      });
      expect(noDescription.isError).toBe(true);
      expect(JSON.stringify(noDescription.content)).toMatch(/description/i);
      const noWhy = await client.callTool({
        name: 'memory_save',
        arguments: {
          type: 'feedback',
          name: 'Canary first',
          description: 'deploy billing to canary first',
          body: 'Canary before prod.',
        },
      });
      expect(noWhy.isError).toBe(true);
      expect(JSON.stringify(noWhy.content)).toMatch(/Why/);

      const saved = await client.callTool({
        name: 'memory_save',
        arguments: {
          type: 'feedback',
          name: 'Deploys go through the canary namespace',
          description:
            'kubernetes deploys of the billing service must go to the canary namespace first',
          body: 'Roll billing out to billing-canary before billing-prod.\n**Why:** a direct prod rollout dropped 3% of invoices.\n**How to apply:** any helm upgrade touching billing.',
        },
      });
      expect(saved.isError, JSON.stringify(saved.content)).toBeFalsy();
      const savedText = JSON.stringify(saved.content);
      expect(savedText).toMatch(/Saved/);

      const recalled = await client.callTool({
        name: 'memory_recall',
        arguments: { query: 'helm upgrade the billing service deploy to kubernetes' },
      });
      expect(recalled.isError).toBeFalsy();
      expect(JSON.stringify(recalled.content)).toContain('billing-canary before billing-prod');

      const listed = await client.callTool({ name: 'memory_list', arguments: {} });
      const file = /\] ([^\s]+\.md) /.exec(JSON.stringify(listed.content))?.[1];
      expect(file).toBeTruthy();

      const resources = (await client.listResources()).resources.map((r) => r.uri);
      expect(resources.some((u) => /index/i.test(u))).toBe(true);

      const missing = await client.callTool({
        name: 'memory_read',
        arguments: { file: 'no-such-memory.md' },
      });
      expect(missing.isError).toBe(true);

      const revoked = await client.callTool({
        name: 'memory_revoke',
        arguments: { file, reason: 'canary namespace was retired' },
      });
      expect(revoked.isError, JSON.stringify(revoked.content)).toBeFalsy();
      const after = await client.callTool({
        name: 'memory_recall',
        arguments: { query: 'helm upgrade the billing service deploy to kubernetes' },
      });
      expect(JSON.stringify(after.content)).not.toContain('billing-canary before billing-prod');
      const audit = await client.callTool({ name: 'memory_audit', arguments: {} });
      expect(audit.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
