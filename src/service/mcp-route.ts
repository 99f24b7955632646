/**
 * `/mcp`: the memory tools over MCP's streamable HTTP transport, stateless (a fresh server and transport per
 * request, answering JSON), so any worker can answer any request and the key of each request decides its tenant.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createMemoryMcpServer } from '../mcp/memory-tools.js';
import type { Tenant } from './api-keys.js';
import type { ServiceAppOptions } from './service-app.js';
import { withTimeout } from './service-lifecycle.js';

export async function handleMcpRequest(request: Request, tenant: Tenant, o: ServiceAppOptions): Promise<Response> {
  const server = createMemoryMcpServer({
    ...o.deps,
    tenant,
    observe: (r) => o.metrics.observe(r),
    call: (p) => withTimeout(o.lifecycle.track(p), o.requestTimeoutMs),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true, maxRequestBodySize: o.maxBodyBytes });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
