import { isResourceServer, type ResourceServer } from '../auth/resource-server.js';
import { declaredScopes } from '../auth/scopes.js';
import { optionError, statusFor } from '../errors/table.js';
import type { Runtime } from '../router/runtime.js';
import type { HttpConfig } from './config.js';
import { isPreflight, preflightResponse } from './cors.js';
import { DEFAULT_HEALTH_PATH } from './defaults.js';
import { jsonResponse, refusal } from './responses.js';
import type { HttpJsonResponse, HttpRequest } from './types.js';

/** The `health` option: `true` for `GET /healthz`, or where to serve it and what else to report. */
export interface HealthOptions {
  /** Default `/healthz`. */
  path?: string;
  /** More to report (a proxy's backends): merged into the 200 body. Throwing makes the answer 503. */
  details?: () => Record<string, unknown> | Promise<Record<string, unknown>>;
}

export interface HealthConfig {
  readonly path: string;
  readonly details: HealthOptions['details'];
}

export function parseHealth(value: unknown): HealthConfig | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return Object.freeze({ path: DEFAULT_HEALTH_PATH, details: undefined });
  if (typeof value !== 'object' || value === null)
    throw optionError('health must be true or { path?, details? }');
  const { path = DEFAULT_HEALTH_PATH, details } = value as HealthOptions;
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw optionError(`health.path must start with "/", got ${JSON.stringify(path)}`);
  }
  if (details !== undefined && typeof details !== 'function')
    throw optionError('health.details must be a function');
  return Object.freeze({ path, details });
}

export function parseAuth(value: unknown): ResourceServer | undefined {
  if (value === undefined) return undefined;
  if (!isResourceServer(value)) {
    throw optionError(
      'auth must be the resource server `await createResourceServer({ resource, authorizationServers })` returns',
    );
  }
  return value;
}

const METADATA_ROOT = '/.well-known/oauth-protected-resource';

/** The paths of the protected resource metadata: the path-suffixed form (RFC 9728 §3.1) and the root one. */
export function metadataPaths(auth: ResourceServer): readonly string[] {
  const suffixed = new URL(auth.metadataUrl).pathname;
  return suffixed === METADATA_ROOT ? [METADATA_ROOT] : [suffixed, METADATA_ROOT];
}

/** Whether core answers `path` besides the MCP endpoint (metadata, health): hosts must not 404 it. */
export function isEdgePath(config: HttpConfig, path: string): boolean {
  return (
    (config.auth !== undefined && metadataPaths(config.auth).includes(path)) || config.health?.path === path
  );
}

/**
 * The answers that come before the MCP endpoint's own checks and need no credentials: a CORS
 * preflight, the protected resource metadata, the health route. Undefined for anything else.
 */
export function edgeResponse(
  runtime: Runtime,
  config: HttpConfig,
  request: HttpRequest,
): HttpJsonResponse | Promise<HttpJsonResponse> | undefined {
  const path = pathOf(request.path);
  const endpoint = config.path === undefined || path === config.path;
  if (config.cors && isPreflight(request) && (endpoint || isEdgePath(config, path))) {
    return preflightResponse(config.cors, runtime, request);
  }
  if (config.auth !== undefined && metadataPaths(config.auth).includes(path)) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return onlyGet();
    return jsonResponse(200, resourceMetadata(config.auth, runtime), {
      'content-type': 'application/json',
      'cache-control': 'public, max-age=3600',
    });
  }
  if (config.health !== undefined && path === config.health.path) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return onlyGet();
    return health(config, config.health);
  }
  return undefined;
}

/** RFC 9728 protected resource metadata of this server. */
export function resourceMetadata(auth: ResourceServer, runtime: Runtime): Record<string, unknown> {
  const { settings } = auth;
  const scopes =
    settings.scopesSupported ?? [...new Set([...settings.requiredScopes, ...declaredScopes(runtime)])].sort();
  const metadata: Record<string, unknown> = {
    resource: settings.resource,
    authorization_servers: [...settings.issuers],
    bearer_methods_supported: ['header'],
  };
  if (scopes.length > 0) metadata.scopes_supported = scopes;
  if (settings.resourceName !== undefined) metadata.resource_name = settings.resourceName;
  if (settings.resourceDocumentation !== undefined)
    metadata.resource_documentation = settings.resourceDocumentation;
  return metadata;
}

async function health(config: HttpConfig, options: HealthConfig): Promise<HttpJsonResponse> {
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (config.shutdownSignal?.aborted === true)
    return jsonResponse(statusFor('SNODO_ERR_UNAVAILABLE'), { status: 'closing' }, headers);
  let details: Record<string, unknown> = {};
  try {
    details = (await options.details?.()) ?? {};
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return jsonResponse(
      statusFor('SNODO_ERR_UNAVAILABLE'),
      { status: 'unavailable', error: message },
      headers,
    );
  }
  return jsonResponse(200, { status: 'ok', executor: config.executor.stats(), ...details }, headers);
}

function onlyGet(): HttpJsonResponse {
  return {
    ...refusal('SNODO_ERR_METHOD_NOT_ALLOWED', null, 'Method not allowed: use GET', {
      headers: { 'content-type': 'application/json', allow: 'GET, HEAD' },
    }),
  };
}

function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}
