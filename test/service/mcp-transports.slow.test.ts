/**
 * The MCP tools through the SDK's own client, over both transports: stdio (the built CLI, `akashic mcp`, spawned as
 * an assistant spawns it) and streamable HTTP (`/mcp` of `akashic serve`, in-process). Each lists the four tools,
 * remembers a fact in one conversation and recalls it from another, reads its history and forgets it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, describe, expect, it } from 'vitest';
import { inProcessService } from './service-helpers.js';

const BIN = resolve('bin/akashic.js');
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };

async function stdioTransport(): Promise<Transport> {
  const dir = await mkdtemp(join(tmpdir(), 'akashic-mcp-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--db', join(dir, 'db')], stderr: 'pipe' });
}

async function httpTransport(): Promise<Transport> {
  const svc = await inProcessService();
  cleanups.push(() => svc.stop());
  return new StreamableHTTPClientTransport(new URL(svc.service.url + '/mcp'));
}

describe.each([
  ['stdio', stdioTransport],
  ['streamable HTTP', httpTransport],
] as const)('MCP over %s', (_name, transport) => {
  it('lists the tools, remembers a fact and recalls it from another conversation, shows its history, forgets it', async () => {
    const client = new Client({ name: 'akashic-test', version: '1.0.0' });
    await client.connect(await transport());
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['forget', 'history', 'recall', 'remember']);
      for (const t of tools) expect(t.description?.length ?? 0).toBeGreaterThan(80);

      const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
        const r = (await client.callTool({ name, arguments: args })) as ToolResult;
        expect(r.isError ?? false, r.content[0]?.text).toBe(false);
        return r.content.map((c) => c.text).join('\n');
      };
      const stored = await call('remember', {
        user: 'alice',
        session: 'monday',
        turns: [
          { role: 'user', text: 'My sister Hanna is getting married in Lisbon in September.' },
          { role: 'assistant', text: 'Congratulations to Hanna! Lisbon in September sounds lovely.' },
        ],
        endSession: true,
      });
      expect(stored).toMatch(/Stored 2 turn/);

      const recalled = await call('recall', { user: 'alice', session: 'friday', query: 'Where is my sister getting married?' });
      expect(recalled).toContain('Lisbon');
      const ref = recalled.match(/Chunks: ([^/\s]+)\/([0-9A-Z]{26})/);
      expect(ref).not.toBeNull();

      const history = await call('history', { user: 'alice', session: ref![1]!, chunkId: ref![2]! });
      expect(history).toMatch(/^v1 from .* current:/);
      expect(history).toContain('Lisbon');

      expect(await call('forget', { user: 'alice' })).toMatch(/Erased the user/);
      expect(await call('recall', { user: 'alice', session: 'friday', query: 'Where is my sister getting married?' })).not.toContain('Lisbon');

      const bad = (await client.callTool({ name: 'recall', arguments: { user: '', session: 's', query: 'q' } })) as ToolResult;
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toMatch(/^AKASHIC_INVALID_ARGUMENT/);
    } finally {
      await client.close();
    }
  });
});
