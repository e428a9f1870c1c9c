// The official SDK's stdio server with the same `echo` tool as the demo server, for
// pipelined-echo.mjs to measure side by side.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'sdk-echo', version: '1.0.0' });
server.registerTool(
  'echo',
  { title: 'Echo', description: 'Returns its text unchanged', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
