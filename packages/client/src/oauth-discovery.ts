import * as oauth from 'oauth4webapi';
import { clientError } from './errors.js';

/** Protected Resource Metadata (RFC 9728) as the client reads it. */
export type Json = Record<string, unknown>;

/** Options of every request to an authorization server: the given fetch, and plain http on loopback. */
export function requestOptions(url: string | URL, fetchImpl: typeof fetch) {
  const { protocol, hostname } = new URL(url);
  return {
    [oauth.customFetch]: fetchImpl,
    [oauth.allowInsecureRequests]: protocol === 'http:' && isLoopback(hostname),
  };
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export function unauthorized(message: string) {
  return clientError('SNODO_ERR_UNAUTHORIZED', `OAuth: ${message}`);
}

/** Parses `Bearer a="b", c=d` challenge parameters. */
export function challengeParams(header: string | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  if (!header) return params;
  for (const match of header.matchAll(/([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[(match[1] as string).toLowerCase()] = (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return params;
}

async function json(fetchImpl: typeof fetch, url: string): Promise<Json | undefined> {
  try {
    const response = await fetchImpl(url, { headers: { accept: 'application/json' } });
    const text = await response.text();
    if (response.status >= 300) return undefined;
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Json)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The server's protected resource metadata: the challenge's `resource_metadata`, else the
 * path-based well-known URL, then the root one. Undefined when none answers (a 2025-03-26 server).
 */
export async function protectedResource(
  fetchImpl: typeof fetch,
  serverUrl: URL,
  advertised: string | undefined,
): Promise<Json | undefined> {
  const candidates: string[] = [];
  if (advertised) candidates.push(advertised);
  const path = serverUrl.pathname === '/' ? '' : serverUrl.pathname.replace(/\/$/, '');
  if (path !== '') candidates.push(`${serverUrl.origin}/.well-known/oauth-protected-resource${path}`);
  candidates.push(`${serverUrl.origin}/.well-known/oauth-protected-resource`);
  for (const url of candidates) {
    const body = await json(fetchImpl, url);
    if (body) return body;
  }
  return undefined;
}

/**
 * The authorization server's metadata (RFC 8414, then OpenID Connect discovery; path-aware for
 * an issuer with a path), its `issuer` checked against the one the resource named (oauth4webapi).
 * Undefined when `optional` and nothing answers.
 */
export async function serverMetadata(
  fetchImpl: typeof fetch,
  issuer: string,
  optional: boolean,
): Promise<oauth.AuthorizationServer | undefined> {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates =
    path === ''
      ? [
          `${url.origin}/.well-known/oauth-authorization-server`,
          `${url.origin}/.well-known/openid-configuration`,
        ]
      : [
          `${url.origin}/.well-known/oauth-authorization-server${path}`,
          `${url.origin}/.well-known/openid-configuration${path}`,
          `${url.origin}${path}/.well-known/openid-configuration`,
        ];
  for (const candidate of candidates) {
    let response: Response;
    try {
      response = await fetchImpl(candidate, { headers: { accept: 'application/json' } });
    } catch {
      continue;
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      continue;
    }
    try {
      return await oauth.processDiscoveryResponse(url, response);
    } catch (error) {
      throw unauthorized(`the metadata of ${issuer} was refused (${(error as Error).message})`);
    }
  }
  if (optional) return undefined;
  throw unauthorized(`no authorization server metadata for ${issuer}`);
}

/** The metadata's resource is this server: same origin, and the server's path within the resource's. */
export function sameResource(resource: string, server: URL): boolean {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.origin !== server.origin) return false;
  const base = url.pathname.replace(/\/$/, '');
  const path = server.pathname.replace(/\/$/, '');
  return path === base || path.startsWith(`${base}/`);
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
