// The official SDK's 2.x stdio entry: serveStdio(factory), which serves 2026-07-28 and 2025-era.
import { importOrUnavailable } from './common.mjs';

const { McpServer } = await importOrUnavailable('@modelcontextprotocol/server');
const { serveStdio } = await importOrUnavailable('@modelcontextprotocol/server/stdio');
const { z } = await importOrUnavailable('zod');

serveStdio(
  () => {
    const server = new McpServer({ name: 'v2-stdio-echo', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Returns its text unchanged', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return server;
  },
  { onerror: (error) => console.error(error.message) },
);
