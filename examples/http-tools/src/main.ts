// A server with two tools, and a client call against it with plain fetch (2026-07-28: no
// handshake, version and capabilities in each request's _meta).
//   node dist/main.js                        serves on a free port, makes the calls, exits
//   node dist/main.js --port N [--host H]    serves on http://127.0.0.1:N/mcp, makes the calls, keeps serving
//   node dist/main.js --stdio                serves the same tools on stdin/stdout
// Build: pnpm --filter http-tools build
import { parseArgs } from 'node:util';
import { createServer, tool } from '@snodo/core';
import { listen } from '@snodo/transport-http';
import { serve } from '@snodo/transport-stdio';
import { z } from 'zod';

const USAGE = 'usage: main.js [--port N [--host H] | --stdio]';
const { values } = parseArgs({
  options: { stdio: { type: 'boolean', default: false }, port: { type: 'string' }, host: { type: 'string' } },
  strict: true,
});

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

/** One 2026-07-28 request: the headers mirror the body, as the transport requires. */
async function call(url: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(url, {
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

/** The client side: list the tools and call both. */
async function demo(url: string): Promise<void> {
  const tools = (await call(url, 'tools/list', {})) as { tools: { name: string }[] };
  console.log('tools:', tools.tools.map((t) => t.name).join(', '));
  const sum = (await call(url, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } })) as {
    structuredContent: { sum: number };
  };
  console.log('add(2, 3) =', sum.structuredContent.sum);
  const echo = (await call(url, 'tools/call', { name: 'echo', arguments: { text: 'hello' } })) as {
    content: { text: string }[];
  };
  console.log('echo:', echo.content[0]?.text);
}

if (values.stdio) {
  await serve(runtime);
} else {
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}\n${USAGE}`);
    process.exit(2);
  }
  const server = await listen({ runtime, port, ...(values.host === undefined ? {} : { host: values.host }) });
  console.log(`serving ${server.url()}`);
  await demo(server.url());
  if (values.port === undefined) {
    await server.close();
  } else {
    console.log('serving until SIGINT or SIGTERM');
    const stop = () => void server.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
}
