import type { ResourceServer } from '@snodo/core';
import { checkBearer, isResourceServer } from '@snodo/core/internal';
import type { FastifyReply, FastifyRequest } from 'fastify';
import './augment.js';

/**
 * Core's bearer-token verifier as a Fastify hook (`onRequest` or `preHandler`): it sets
 * `request.mcpAuth` from a token `auth` verifies, or replies 401/400/403 with the
 * `WWW-Authenticate` challenge core sends. A request an earlier hook of the application already
 * authenticated (`mcpAuth` set) passes untouched: the application's own authentication comes first.
 */
export function mcpBearerAuth(auth: ResourceServer) {
  if (!isResourceServer(auth)) {
    throw new TypeError('mcpBearerAuth needs the resource server `await createResourceServer(...)` returns');
  }
  return async function mcpBearerAuthHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.mcpAuth !== undefined) return;
    const header = request.headers.authorization;
    const checked = await checkBearer(auth, typeof header === 'string' ? header : undefined);
    if ('auth' in checked) {
      request.mcpAuth = checked.auth;
      return;
    }
    const { status, headers, body } = checked.response;
    await reply.code(status).headers(headers).send(Buffer.from(body));
  };
}
