// The official SDK's current server (@modelcontextprotocol/server 2.x) on plain node:http, with the
// echo tool.
//   default      createMcpHandler(factory), mounted with toNodeHandler from @modelcontextprotocol/node
//                (the documented node:http mount): 2026-07-28 stateless, JSON responses (mode auto).
//   --stateful   2.x's session pattern (createMcpHandler has none): NodeStreamableHTTPServerTransport
//                with sessionIdGenerator randomUUID, one transport and server per session in a map.
import { randomUUID } from 'node:crypto';
import { flag, importOrUnavailable, serveNodeHttp } from './common.mjs';

const { McpServer, createMcpHandler } = await importOrUnavailable('@modelcontextprotocol/server');
const { NodeStreamableHTTPServerTransport, toNodeHandler } = await importOrUnavailable(
  '@modelcontextprotocol/node',
);
const { z } = await importOrUnavailable('zod');

function buildServer() {
  const server = new McpServer({ name: 'v2-http-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its text unchanged', inputSchema: z.object({ text: z.string() }) },
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
        transport = new NodeStreamableHTTPServerTransport({
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
  const handler = createMcpHandler(() => buildServer(), { onerror: (error) => console.error(error.message) });
  const node = toNodeHandler(handler);
  serveNodeHttp(
    (req, res) => node(req, res).catch((error) => fail(res, error)),
    () => handler.close(),
  );
}
