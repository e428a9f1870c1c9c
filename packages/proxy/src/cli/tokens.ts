import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@snodo/core';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * `authenticate` for the HTTP listener: `Authorization: Bearer <token>` must carry one of
 * `tokens` (compared in constant time, through their digests); the principal is `token-<n>`, the
 * token's position in the list (never the token itself). Anything else is refused (401).
 */
export function bearerAuthenticator(tokens: readonly string[]): (request: IncomingMessage) => AuthInfo {
  const digests = tokens.map(digest);
  return (request) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (match) {
      const given = digest(match[1] as string);
      const found = digests.findIndex((expected) => timingSafeEqual(expected, given));
      if (found >= 0) return { principal: `token-${found + 1}` };
    }
    throw new Error('a valid bearer token is required');
  };
}
