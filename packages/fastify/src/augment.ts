import type { AuthInfo } from '@snodo/core';

/** What the application's own authentication hook attaches to a request (see the README). */
export interface McpAuth extends AuthInfo {
  /** A stable identifier of the verified caller; binds MRTR request state. */
  principal?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The identity the application verified (its `onRequest` or `preHandler` hook sets it). The
     * plugin hands it to handlers as `context.auth` and binds MRTR state to `principal`; it never
     * reads identity from headers itself. Undefined: an anonymous request.
     */
    mcpAuth?: McpAuth;
    /**
     * A verified identifier of the client instance (not only the user: two instances of one user
     * must differ). Requests that share it may cancel each other with `notifications/cancelled` on
     * 2026-07-28; without it, only closing the request's connection cancels it.
     */
    mcpCancellationScope?: string;
  }
}
