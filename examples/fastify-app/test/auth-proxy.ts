import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback pass-through that adds `Authorization` to every request: the conformance suite sends
 * no credentials, and the app under test must keep its authentication hook in the path. Headers
 * (Host and Origin included, which the DNS-rebinding scenario forges) and bodies go through
 * unchanged and streamed; either side closing closes the other.
 */
export async function authProxy(
  target: { port: number },
  authorization: string,
): Promise<{ url: (path: string) => string; close(): Promise<void> }> {
  const server: Server = createServer((incoming, outgoing) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
