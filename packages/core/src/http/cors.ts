import { optionError, statusFor } from '../errors/table.js';
import type { Runtime } from '../router/runtime.js';
import { DEFAULT_CORS_MAX_AGE } from './defaults.js';
import { emptyResponse } from './responses.js';
import type { HttpJsonResponse, HttpRequest, HttpResponse } from './types.js';

/**
 * Cross-origin access for browser clients (the `cors` option). Off by default, and independent of
 * the Origin check (`allowedOriginHosts`), which still refuses a request whose Origin it does not
 * accept: a browser page needs both.
 */
export interface CorsOptions {
  /** Origins allowed to call (`https://app.example.com`), `'*'` for any, or a predicate. */
  origins: readonly string[] | ((origin: string) => boolean);
  /** `Access-Control-Max-Age` of a preflight answer, in seconds. Default 600. */
  maxAge?: number;
  /** Sends `Access-Control-Allow-Credentials: true` (cookies, TLS client certificates). Default false. */
  credentials?: boolean;
}

export interface CorsRules {
  readonly allows: (origin: string) => boolean;
  readonly maxAge: number;
  readonly credentials: boolean;
}

/** Headers a browser script may read from a response. */
const EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate';
/** Names in `Access-Control-Request-Headers`: RFC 9110 tokens, at most this many. */
const MAX_REQUEST_HEADERS = 64;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseCors(value: unknown): CorsRules | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null)
    throw optionError('cors must be { origins, maxAge?, credentials? }');
  const { origins, maxAge = DEFAULT_CORS_MAX_AGE, credentials = false } = value as CorsOptions;
  if (!Number.isInteger(maxAge) || maxAge < 0)
    throw optionError(`cors.maxAge must be a non-negative integer of seconds, got ${String(maxAge)}`);
  if (typeof credentials !== 'boolean') throw optionError('cors.credentials must be a boolean');
  let allows: (origin: string) => boolean;
  if (typeof origins === 'function') {
    allows = (origin) => origins(origin) === true;
  } else if (Array.isArray(origins)) {
    const set = new Set<string>();
    for (const origin of origins) {
      if (origin !== '*' && !isOrigin(origin)) {
        throw optionError(
          `cors.origins entries must be "*" or an origin like "https://app.example.com", got ${JSON.stringify(origin)}`,
        );
      }
      set.add(origin === '*' ? origin : new URL(origin).origin);
    }
    if (set.has('*') && credentials)
      throw optionError('cors.origins "*" cannot be combined with cors.credentials');
    allows = set.has('*') ? () => true : (origin) => set.has(origin);
  } else {
    throw optionError('cors.origins must be an array of origins or a function');
  }
  return Object.freeze({ allows, maxAge, credentials });
}

function isOrigin(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '');
  } catch {
    return false;
  }
}

/** A CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(request: Pick<HttpRequest, 'method' | 'headers'>): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  );
}

/**
 * The answer to a preflight: 204 with the allowed methods and the requested headers when the origin
 * is allowed; 403 without CORS headers otherwise (the browser then refuses the real request).
 */
export function preflightResponse(
  rules: CorsRules,
  runtime: Runtime,
  request: HttpRequest,
): HttpJsonResponse {
  const origin = request.headers.origin as string;
  const requested = (request.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (
    !rules.allows(origin) ||
    requested.length > MAX_REQUEST_HEADERS ||
    !requested.every((name) => TOKEN.test(name))
  ) {
    return emptyResponse(statusFor('SNODO_ERR_ORIGIN_FORBIDDEN'), { vary: 'origin' });
  }
  const methods = runtime.legacyVersions.length > 0 ? 'POST, GET, DELETE' : 'POST';
  const headers: Record<string, string> = {
    ...allowOrigin(rules, origin),
    'access-control-allow-methods': methods,
    'access-control-max-age': String(rules.maxAge),
    vary: 'origin, access-control-request-method, access-control-request-headers',
  };
  if (requested.length > 0) headers['access-control-allow-headers'] = requested.join(', ');
  return emptyResponse(204, headers);
}

/** The response with `Access-Control-Allow-Origin` and the exposed headers, when its Origin is allowed. */
export function withCors(
  rules: CorsRules | undefined,
  request: Pick<HttpRequest, 'method' | 'headers'>,
  response: HttpResponse,
): HttpResponse {
  const origin = request.headers.origin;
  if (rules === undefined || origin === undefined || isPreflight(request)) return response;
  if (!rules.allows(origin)) return { ...response, headers: { ...response.headers, vary: 'origin' } };
  return {
    ...response,
    headers: {
      ...response.headers,
      ...allowOrigin(rules, origin),
      'access-control-expose-headers': EXPOSED,
      vary: 'origin',
    },
  };
}

function allowOrigin(rules: CorsRules, origin: string): Record<string, string> {
  const headers: Record<string, string> = { 'access-control-allow-origin': origin };
  if (rules.credentials) headers['access-control-allow-credentials'] = 'true';
  return headers;
}
