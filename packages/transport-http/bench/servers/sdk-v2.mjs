// Official SDK v2 (@modelcontextprotocol/server 2.4.0): createMcpHandler(factory) mounted on node:http
// with toNodeHandler (@modelcontextprotocol/node), the documented way; same echo tool. Prints its URL.
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'v2-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echo the text back', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  return server;
});
const nodeHandler = toNodeHandler(handler);
const server = http.createServer((req, res) => {
  nodeHandler(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(500).end();
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/mcp`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
