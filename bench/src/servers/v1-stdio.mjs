// The official SDK's 1.x stdio server: McpServer + StdioServerTransport, the echo tool.
import { importOrUnavailable } from './common.mjs';

const { McpServer } = await importOrUnavailable('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = await importOrUnavailable('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = await importOrUnavailable('zod');

const server = new McpServer({ name: 'v1-stdio-echo', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Returns its text unchanged', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
