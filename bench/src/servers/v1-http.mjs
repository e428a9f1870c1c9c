// The official SDK's 1.x line (@modelcontextprotocol/sdk) on plain node:http, with the echo tool.
//   default      stateless, as its docs show: a new McpServer and transport per request
//                (sessionIdGenerator: undefined), JSON responses (enableJsonResponse) like ours.
//   --stateful   the documented session pattern: sessionIdGenerator randomUUID, one transport and
//                server per session kept in a map from onsessioninitialized, removed on close.
import { randomUUID } from 'node:crypto';
import { flag, importOrUnavailable, serveNodeHttp } from './common.mjs';

const { McpServer } = await importOrUnavailable('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = await importOrUnavailable(
  '@modelcontextprotocol/sdk/server/streamableHttp.js',
);
const { z } = await importOrUnavailable('zod');

function buildServer() {
  const server = new McpServer({ name: 'v1-http-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its text unchanged', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

const fail = (res, error) => {
  console.error(error);
  if (!res.headersSent) res.writeHead(500).end();
};

if (flag('stateful')) {
  const transports = new Map();
  serveNodeHttp(async (req, res) => {
    try {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (transport === undefined) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sid) => transports.set(sid, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
        };
        await buildServer().connect(transport);
      }
      await transport.handleRequest(req, res);
    } catch (error) {
      fail(res, error);
    }
  });
} else {
  serveNodeHttp(async (req, res) => {
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (error) {
      fail(res, error);
    }
  });
}
