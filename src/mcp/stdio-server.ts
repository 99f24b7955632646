/**
 * `akashic mcp`: the memory tools over stdio for one local MCP client (an assistant that spawns the process).
 * The local process is trusted with every user of the database it opens, as the embedded library is.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AkashicStore } from '../engine/akashic-store.js';
import type { AkashicMemory } from '../memattention/memory.js';
import { createMemoryMcpServer } from './memory-tools.js';

/** Serves the tools on stdin/stdout; resolves when the client closes the connection. */
export async function serveMcpStdio(deps: { readonly store: AkashicStore; readonly memory: AkashicMemory }): Promise<void> {
  const server = createMemoryMcpServer({ ...deps, tenant: { allows: () => true } });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  // The transport ends when stdin does (the client went away).
  process.stdin.once('end', () => void server.close());
  await closed;
}
