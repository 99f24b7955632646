/** The memory as MCP tools (remember, recall, forget, history) and the stdio server of `akashic mcp`. */
export { createMemoryMcpServer, type MemoryToolDeps, type ToolTenant } from './memory-tools.js';
export { serveMcpStdio } from './stdio-server.js';
