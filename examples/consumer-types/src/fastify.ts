import { createServer, tool } from '@snodo/core';
import { snodo } from '@snodo/fastify';
import Fastify, { type FastifyInstance } from 'fastify';

const whoami = tool({ name: 'whoami', handler: (_args, ctx) => ctx.auth?.principal ?? '?' });
const runtime = createServer({ name: 'notes', version: '1.0.0', tools: [whoami] });

async function verifyToken(header: string | undefined): Promise<{ id: string } | undefined> {
  return header === 'Bearer secret' ? { id: 'ada' } : undefined;
}

async function api(scope: FastifyInstance) {
  scope.addHook('onRequest', async (request, reply) => {
    const user = await verifyToken(request.headers.authorization);
    if (!user) return reply.code(401).send({ error: 'unauthorized' });
    request.mcpAuth = { principal: user.id };
  });
  await scope.register(snodo, { runtime, path: '/mcp' });
}
const app = Fastify();
await app.register(api, { prefix: '/api' });
await app.listen({ port: 3000 });
