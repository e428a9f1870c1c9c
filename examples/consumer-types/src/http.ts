import { createServer, tool } from '@snodo/core';
import { listen } from '@snodo/transport-http';
import { z } from 'zod';

const runtime = createServer({
  name: 'demo',
  version: '1.0.0',
  tools: [tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text })],
});

const server = await listen({ runtime, port: 4000 });
console.info(server.url(), server.stats());
process.once('SIGTERM', () => server.close());
