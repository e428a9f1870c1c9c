import { authRefusal } from '../auth/challenge.js';
import type { ResourceServer } from '../auth/resource-server.js';
import { missingScopes, requiredScopesOf } from '../auth/scopes.js';
import type { AuthInfo } from '../dispatch/context.js';
import type { DecodedSingle } from '../jsonrpc/decode.js';
import type { Runtime } from '../router/runtime.js';
import type { HttpJsonResponse, HttpRequest } from './types.js';

/** `Authorization: Bearer <token>` (RFC 6750 §2.1): the scheme is case-insensitive, the token is token68. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Checks a request's bearer token with `auth` before any MCP work: 401 without one (a challenge
 * naming the metadata), 400 for a malformed `Authorization: Bearer`, 401 `invalid_token` for one
 * that fails, 403 `insufficient_scope` when it lacks the scopes every request needs. On success the
 * verified claims become the request's `auth`.
 */
export async function authenticateBearer(
  auth: ResourceServer,
  request: HttpRequest,
): Promise<{ readonly request: HttpRequest } | { readonly response: HttpJsonResponse }> {
  const checked = await checkBearer(auth, request.headers.authorization);
  return 'response' in checked ? checked : { request: { ...request, auth: checked.auth } };
}

/** `authenticateBearer` on the `Authorization` header alone, for hosts with their own request type. */
export async function checkBearer(
  auth: ResourceServer,
  header: string | undefined,
): Promise<{ readonly auth: AuthInfo } | { readonly response: HttpJsonResponse }> {
  const { metadataUrl, settings } = auth;
  const required = settings.requiredScopes;
  if (header === undefined || !/^bearer(\s|$)/i.test(header.trimStart())) {
    return { response: authRefusal('missing_token', { metadataUrl, scopes: required }) };
  }
  const match = BEARER.exec(header.trim());
  if (!match) {
    return {
      response: authRefusal('invalid_request', {
        metadataUrl,
        description: 'the Authorization header is not "Bearer <token>"',
      }),
    };
  }
  const checked = await auth.verifyToken(match[1] as string);
  if (!checked.ok) {
    return {
      response: authRefusal('invalid_token', {
        metadataUrl,
        scopes: required,
        description: checked.description,
      }),
    };
  }
  const missing = missingScopes(required, new Set(checked.auth.scopes ?? []));
  if (missing.length > 0) return { response: insufficientScope(auth, checked.auth, missing) };
  return { auth: checked.auth };
}

/**
 * The refusal of a request whose target (a tool, prompt or resource with `requiredScopes`) needs
 * scopes the caller lacks: 403 `insufficient_scope` naming the scopes to ask for (those granted and
 * the missing ones, so a step-up keeps what the client has), or 401 for an anonymous caller.
 * Undefined when every target is allowed.
 */
export function scopeRefusal(
  runtime: Runtime,
  auth: ResourceServer | undefined,
  caller: AuthInfo | undefined,
  messages: readonly DecodedSingle[],
): HttpJsonResponse | undefined {
  // Made only for a target that requires scopes: most requests have none.
  let granted: ReadonlySet<string> | undefined;
  let missing: Set<string> | undefined;
  for (const message of messages) {
    if (message.kind !== 'request') continue;
    const required = requiredScopesOf(runtime, message.method, message.params);
    if (required === undefined || required.length === 0) continue;
    granted ??= new Set(caller?.scopes ?? []);
    const lacking = missingScopes(required, granted);
    if (lacking.length > 0) missing = new Set([...(missing ?? []), ...lacking]);
  }
  if (missing === undefined) return undefined;
  if (caller === undefined) {
    return authRefusal('missing_token', { metadataUrl: auth?.metadataUrl, scopes: [...missing] });
  }
  return insufficientScope(auth, caller, [...missing]);
}

function insufficientScope(
  auth: ResourceServer | undefined,
  caller: AuthInfo,
  missing: readonly string[],
): HttpJsonResponse {
  return authRefusal('insufficient_scope', {
    metadataUrl: auth?.metadataUrl,
    scopes: [...new Set([...(caller.scopes ?? []), ...missing])],
    description: `this request needs the scope${missing.length === 1 ? '' : 's'} ${missing.join(' ')}`,
  });
}
