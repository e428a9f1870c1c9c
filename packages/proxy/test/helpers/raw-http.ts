import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A 2026-07-28 Streamable HTTP server written without Snodo, on 127.0.0.1: tools `bump` (no
 * annotations) and `peek` (readOnlyHint). Each call counts, then the first call of each tool has
 * its connection cut before any response: the stream breaks after the request may have had its
 * effect. Later calls answer with the count.
 */
export async function startCuttingServer(): Promise<{
  url: string;
  calls: Record<string, number>;
  close(): Promise<void>;
}> {
  const calls: Record<string, number> = { bump: 0, peek: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      const message = JSON.parse(body) as { id: number; method: string; params?: { name?: string } };
      const reply = (result: Record<string, unknown>) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...result } }),
        );
      };
      if (message.method === 'server/discover') {
        return reply({
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          ttlMs: 0,
          cacheScope: 'private',
        });
      }
      if (message.method === 'tools/list') {
        return reply({
          tools: [
            { name: 'bump', inputSchema: { type: 'object' } },
            { name: 'peek', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
          ],
          ttlMs: 0,
          cacheScope: 'private',
        });
      }
      const name = String(message.params?.name);
      calls[name] = (calls[name] ?? 0) + 1;
      if (calls[name] === 1) {
        request.socket.destroy();
        return;
      }
      reply({ content: [{ type: 'text', text: `${name} ${calls[name]}` }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
