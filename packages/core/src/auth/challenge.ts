import { ErrorCode } from '../errors/codes.js';
import { errorHttpResponse, JSON_HEADERS } from '../http/responses.js';
import type { HttpJsonResponse } from '../http/types.js';

/**
 * The refusals of bearer authorization (RFC 6750 §3), declared once: status and `error` code of the
 * `WWW-Authenticate` challenge. `missing_token` carries no error code (the request had no
 * credentials, §3.1); the body of each is an id-less JSON-RPC error (-32600) whose message is the
 * description and whose `data.error` is the code.
 */
export const AUTH_REFUSALS = Object.freeze({
  missing_token: { status: 401, error: undefined },
  invalid_request: { status: 400, error: 'invalid_request' },
  invalid_token: { status: 401, error: 'invalid_token' },
  insufficient_scope: { status: 403, error: 'insufficient_scope' },
} as const);

export type AuthRefusal = keyof typeof AUTH_REFUSALS;

export interface ChallengeParams {
  /** This server's protected resource metadata URL (absent when the host authenticates on its own). */
  readonly metadataUrl?: string | undefined;
  /** Scopes the client should ask for (space-separated in the header). */
  readonly scopes?: readonly string[] | undefined;
  readonly description?: string | undefined;
}

/** `Bearer error="…", error_description="…", scope="…", resource_metadata="…"`. */
export function bearerChallenge(refusal: AuthRefusal, params: ChallengeParams = {}): string {
  const parts: string[] = [];
  const { error } = AUTH_REFUSALS[refusal];
  if (error !== undefined) parts.push(`error="${error}"`);
  if (params.description !== undefined && error !== undefined)
    parts.push(`error_description="${quotable(params.description)}"`);
  if (params.scopes !== undefined && params.scopes.length > 0)
    parts.push(`scope="${params.scopes.join(' ')}"`);
  if (params.metadataUrl !== undefined) parts.push(`resource_metadata="${quotable(params.metadataUrl)}"`);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}

/** A complete refusal: status, `WWW-Authenticate` and the JSON-RPC error body. */
export function authRefusal(refusal: AuthRefusal, params: ChallengeParams = {}): HttpJsonResponse {
  const { status, error } = AUTH_REFUSALS[refusal];
  const label = status === 403 ? 'Forbidden' : status === 400 ? 'Bad request' : 'Unauthorized';
  const message = params.description === undefined ? label : `${label}: ${params.description}`;
  return errorHttpResponse(
    status,
    null,
    ErrorCode.InvalidRequest,
    message,
    error === undefined ? undefined : { error },
    { ...JSON_HEADERS, 'www-authenticate': bearerChallenge(refusal, params) },
  );
}

/** Text safe inside a quoted-string: printable ASCII without `"` and `\` (RFC 6750 §3). */
function quotable(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?');
}

/**
 * The 401 of a host's own authentication (`authenticate` threw): `invalid_token` when the request
 * carried credentials, a bare `Bearer` challenge when it had none.
 */
export function hostAuthRefusal(authorization: string | undefined): HttpJsonResponse {
  return authorization === undefined ? authRefusal('missing_token') : authRefusal('invalid_token');
}
