// Snodo: the listener under test, tool `echo {text}`. Prints its URL on stdout.
import { createServer, tool } from '@snodo/core';
import { listen } from '@snodo/transport-http';
import { z } from 'zod';

const runtime = createServer({
  name: 'snodo-echo',
  version: '1.0.0',
  tools: [tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text })],
});
const server = await listen({ runtime, port: 0 });
console.log(server.url());
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
