import type { Runtime } from '@snodo/core';
import { type McpAuth, type SnodoFastifyOptions, snodo } from '@snodo/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';

/** Who a bearer token was issued to: the user, and the client instance (one per device or app). */
export interface Grant {
  readonly principal: string;
  readonly instance: string;
}

export interface AppOptions {
  /** The MCP server mounted at /api/mcp. */
  readonly runtime: Runtime;
  /** Bearer tokens the application accepts. A real application verifies a JWT or asks its session store. */
  readonly tokens: ReadonlyMap<string, Grant>;
  /** Further options of the MCP plugin (bounds, allowed hosts, a shared executor). */
  readonly mcp?: Omit<SnodoFastifyOptions, 'runtime'>;
  readonly fastify?: FastifyServerOptions;
}

/**
 * The application as it was before MCP — a health route, a JSON API under /api guarded by a
 * bearer-token hook — plus the one `register` call that mounts MCP beside the API.
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // Fastify's own bounds, for every route: idle sockets, the whole request's arrival, JSON bodies.
    connectionTimeout: 60_000, // longer than the SSE keepalive interval (15 s), or idle streams die
    requestTimeout: 30_000,
    bodyLimit: 1_048_576,
    ...options.fastify,
  });

  app.get('/health', async () => ({ status: 'ok' }));

  await app.register(
    async (api) => {
      // Authentication stays the application's: the plugin trusts what this hook sets.
      api.addHook('onRequest', async (request, reply) => {
        const header = request.headers.authorization;
        const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
        if (token === undefined) {
          return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
        }
        const grant = options.tokens.get(token);
        if (grant === undefined) return reply.code(403).send({ error: 'forbidden' });
        const auth: McpAuth = { principal: grant.principal, scopes: ['mcp'] };
        request.mcpAuth = auth;
        request.mcpCancellationScope = grant.instance;
      });

      // The existing JSON API keeps Fastify's parser and schema validation.
      api.get('/me', async (request) => ({ principal: request.mcpAuth?.principal }));
      api.post<{ Body: { text: string } }>(
        '/notes',
        {
          schema: {
            body: {
              type: 'object',
              properties: { text: { type: 'string' } },
              required: ['text'],
            },
          },
        },
        async (request, reply) => reply.code(201).send({ saved: request.body.text }),
      );

      await api.register(snodo, { runtime: options.runtime, path: '/mcp', ...options.mcp });
    },
    { prefix: '/api' },
  );
  return app;
}
