// Official SDK v1 (@modelcontextprotocol/sdk 1.32.2): Streamable HTTP in stateless mode
// (sessionIdGenerator: undefined, a server and transport per request, as the SDK's stateless example
// does) on node:http; same echo tool. Prints its URL.
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const server = http.createServer(async (req, res) => {
  const mcp = new McpServer({ name: 'v1-echo', version: '1.0.0' });
  mcp.registerTool(
    'echo',
    { description: 'Echo the text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    transport.close();
    mcp.close();
  });
  try {
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  } catch {
    if (!res.headersSent) res.writeHead(500).end();
  }
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/mcp`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
