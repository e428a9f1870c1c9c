// A server with two tools on http://127.0.0.1:<port>/mcp, then a client call against it with
// plain fetch (2026-07-28: no handshake, version and capabilities in each request's _meta).
// Run: pnpm --filter http-tools build && node examples/http-tools/dist/main.js
import { createServer, tool } from '@snodo/core';
import { listen } from '@snodo/transport-http';
import { z } from 'zod';

const runtime = createServer({
  name: 'http-tools',
  version: '1.0.0',
  tools: [
    tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
    tool({
      name: 'add',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      handler: ({ a, b }) => ({ content: [], structuredContent: { sum: a + b } }),
    }),
  ],
});

const server = await listen({ runtime, port: Number(process.env.PORT ?? 0) });
console.log(`serving ${server.url()}`);

/** One 2026-07-28 request: the headers mirror the body, as the transport requires. */
async function call(method: string, params: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(server.url(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'http-tools-client', version: '1.0.0' },
        },
      },
    }),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${response.status}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const tools = (await call('tools/list', {})) as { tools: { name: string }[] };
console.log('tools:', tools.tools.map((t) => t.name).join(', '));
const sum = (await call('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })) as {
  structuredContent: { sum: number };
};
console.log('add(2, 3) =', sum.structuredContent.sum);
const echo = (await call('tools/call', { name: 'echo', arguments: { text: 'hello' } })) as {
  content: { text: string }[];
};
console.log('echo:', echo.content[0]?.text);

if (process.argv.includes('--serve')) {
  console.log('serving until Ctrl-C');
  process.once('SIGINT', () => void server.close());
} else {
  await server.close();
}
