import { dialectFor } from '../dialects/registry.js';
import { selectRevision } from '../dispatch/select.js';
import { type Session, sessionServes } from '../dispatch/session.js';
import { oversizedBatchError } from '../engine/batch.js';
import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { RequestId } from '../json/int.js';
import { type DecodedSingle, decodeMessage } from '../jsonrpc/decode.js';
import { META, type ProtocolVersion } from '../protocol/types.js';
import type { Runtime } from '../router/runtime.js';
import { authenticateBearer, scopeRefusal } from './bearer.js';
import type { HttpConfig } from './config.js';
import { edgeResponse } from './edge.js';
import {
  acceptsEventStream,
  acceptsJsonAndEventStream,
  decodeHeaderValue,
  mediaType,
  trimOws,
} from './header-values.js';
import { hostAllowed, originAllowed } from './origin.js';
import { paramHeaderProblem, paramHeadersOf } from './param-headers.js';
import { refusal } from './responses.js';
import { plausibleSessionId } from './sessions.js';
import { fieldName, repeatedField } from './single-fields.js';
import type { HttpJsonResponse, HttpRequest } from './types.js';

type RequestMessage = Extract<DecodedSingle, { kind: 'request' }>;
type OtherMessage = Extract<DecodedSingle, { kind: 'notification' | 'response' }>;

/** An initialize-based session found from `Mcp-Session-Id`. */
export interface SessionRef {
  readonly id: string;
  readonly session: Session;
}

/** What `execute` will do; decided by `prepare`, which performs no side effect. */
export type Work =
  | {
      readonly kind: 'request';
      readonly message: RequestMessage;
      /** 2026-07-28 (stateless) rather than a session's revision. */
      readonly modern: boolean;
      readonly session: SessionRef | undefined;
      readonly headerVersion: string | undefined;
    }
  | { readonly kind: 'initialize'; readonly message: RequestMessage }
  | {
      readonly kind: 'notification';
      readonly message: OtherMessage;
      readonly session: SessionRef | undefined;
      readonly headerVersion: string | undefined;
    }
  | {
      readonly kind: 'batch';
      readonly items: DecodedSingle[];
      readonly session: SessionRef;
      readonly headerVersion: string | undefined;
    }
  | { readonly kind: 'delete'; readonly session: SessionRef }
  /** The standalone GET stream of an initialize-based session. */
  | { readonly kind: 'listen'; readonly session: SessionRef };

/** A request that passed admission, ready for `execute`. Treat it as opaque. */
export interface PreparedRequest {
  readonly runtime: Runtime;
  readonly config: HttpConfig;
  readonly request: HttpRequest;
  readonly work: Work;
}

export type PrepareResult = { readonly prepared: PreparedRequest } | { readonly response: HttpJsonResponse };

/** A session lookup: the session, or the refusal (400 without `Mcp-Session-Id`, 404). */
type Found = { readonly session: SessionRef } | { readonly response: HttpJsonResponse };

const MODERN_ONLY = new Set(['server/discover', 'subscriptions/listen']);
const NAMED: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * Admits and decodes one HTTP request without running a handler: path, Host, Origin, method, media
 * types, size, JSON-RPC decoding, the 2026-07-28 header rules, and the session of the
 * initialize-based revisions. Returns the prepared request, or the complete refusal.
 * `config` comes from `resolveHttpOptions` (it owns the executor and the session store).
 */
export async function prepare(
  runtime: Runtime,
  request: HttpRequest,
  config: HttpConfig,
): Promise<PrepareResult> {
  return prepareNow(runtime, request, config);
}

/**
 * `prepare`, answered without a promise when nothing is waited for: no health check, bearer
 * token or session lookup (a 2026-07-28 request of an anonymous or host-authenticated caller).
 */
export function prepareNow(
  runtime: Runtime,
  request: HttpRequest,
  config: HttpConfig,
): PrepareResult | Promise<PrepareResult> {
  const edge = edgeResponse(runtime, config, request);
  if (edge) return edge instanceof Promise ? edge.then((response) => ({ response })) : { response: edge };
  const refused = admit(config, request);
  if (refused) return { response: refused };
  // A request its host already authenticated (its own auth comes first) is not checked again.
  if (config.auth && request.auth === undefined) {
    return authenticateBearer(config.auth, request).then((authorized) =>
      'response' in authorized ? authorized : admitted(runtime, authorized.request, config),
    );
  }
  return admitted(runtime, request, config);
}

/** The work of an admitted request (see `prepare`). */
function admitted(
  runtime: Runtime,
  request: HttpRequest,
  config: HttpConfig,
): PrepareResult | Promise<PrepareResult> {
  const rawHeaderVersion = request.headers['mcp-protocol-version'];
  const headerVersion = rawHeaderVersion === undefined ? undefined : trimOws(rawHeaderVersion);
  const inSession = (
    found: Found | Promise<Found>,
    id: RequestId | null,
    work: (session: SessionRef) => PrepareResult,
  ): Promise<PrepareResult> => legacyWork(runtime, config, request, found, headerVersion, id, work);

  if (request.method === 'DELETE') {
    const id = request.headers['mcp-session-id'];
    if (id === undefined) return { response: methodNotAllowed(runtime) };
    return inSession(findSession(config, request, id), null, (session) =>
      done(runtime, config, request, { kind: 'delete', session }),
    );
  }
  if (request.method === 'GET') {
    // The standalone stream exists only for the initialize-based revisions; 2026-07-28 has no GET.
    const id = request.headers['mcp-session-id'];
    if (id === undefined || runtime.legacyVersions.length === 0)
      return { response: methodNotAllowed(runtime) };
    if (!acceptsEventStream(request.headers.accept)) {
      return {
        response: refusal('SNODO_ERR_NOT_ACCEPTABLE', null, 'Accept must list text/event-stream'),
      };
    }
    return inSession(findSession(config, request, id), null, (session) =>
      done(runtime, config, request, { kind: 'listen', session }),
    );
  }
  if (request.method !== 'POST') return { response: methodNotAllowed(runtime) };

  if (mediaType(request.headers['content-type']) !== 'application/json') {
    return {
      response: refusal('SNODO_ERR_UNSUPPORTED_MEDIA_TYPE', null, 'Content-Type must be application/json'),
    };
  }
  if (!acceptsJsonAndEventStream(request.headers.accept)) {
    return {
      response: refusal(
        'SNODO_ERR_NOT_ACCEPTABLE',
        null,
        'Accept must list both application/json and text/event-stream',
      ),
    };
  }
  if (request.body.byteLength > config.maxBodyBytes) {
    return {
      response: refusal('SNODO_ERR_BODY_TOO_LARGE', null, `Body exceeds ${config.maxBodyBytes} bytes`),
    };
  }

  const headerIsModern = headerVersion !== undefined && dialectFor(headerVersion)?.era === 'modern';
  const decoded = decodeMessage(request.body, config.decodeLimits);

  if (decoded.kind === 'batch') {
    if (headerIsModern)
      return { response: notAccepted(null, 'JSON-RPC batches are not accepted on 2026-07-28') };
    return inSession(sessionOf(config, request), null, (session) => {
      if (dialectFor(session.session.protocolVersion)?.batches !== true) {
        return {
          response: notAccepted(null, 'JSON-RPC batches are accepted only on protocol revision 2025-03-26'),
        };
      }
      const tooMany = oversizedBatchError(decoded.items.length, config.maxBatchItems);
      if (tooMany) {
        const { code: rpcCode, message, data } = tooMany;
        return { response: refusal('SNODO_ERR_BATCH_TOO_LARGE', null, message, { rpcCode, data }) };
      }
      return done(runtime, config, request, { kind: 'batch', items: decoded.items, session, headerVersion });
    });
  }
  if (decoded.kind === 'invalid') {
    return {
      response: refusal('SNODO_ERR_MALFORMED_MESSAGE', decoded.id, decoded.error.message, {
        rpcCode: decoded.error.code,
        data: decoded.error.data,
      }),
    };
  }
  if (decoded.kind !== 'request') {
    const metaModern =
      metaVersionOf(decoded.kind === 'notification' ? decoded.params : undefined) !== undefined;
    if (decoded.kind === 'response' && headerIsModern) {
      return { response: notAccepted(null, 'Clients send no JSON-RPC responses on 2026-07-28') };
    }
    if (headerIsModern || metaModern) {
      const method = request.headers['mcp-method'];
      if (method !== undefined && decoded.kind === 'notification' && trimOws(method) !== decoded.method) {
        return { response: mismatch(null, 'Mcp-Method header does not match the body method') };
      }
      return done(runtime, config, request, {
        kind: 'notification',
        message: decoded,
        session: undefined,
        headerVersion,
      });
    }
    return inSession(sessionOf(config, request), null, (session) =>
      done(runtime, config, request, { kind: 'notification', message: decoded, session, headerVersion }),
    );
  }

  const { id, method, params } = decoded;
  const metaVersion = metaVersionOf(params);
  if (metaVersion !== undefined || headerIsModern || MODERN_ONLY.has(method)) {
    const problem = modernProblem(runtime, request, decoded, headerVersion, metaVersion);
    if (problem) return { response: problem };
    return done(runtime, config, request, {
      kind: 'request',
      message: decoded,
      modern: true,
      session: undefined,
      headerVersion,
    });
  }
  if (method === 'initialize')
    return done(runtime, config, request, { kind: 'initialize', message: decoded });
  return inSession(sessionOf(config, request, id), id, (session) =>
    done(runtime, config, request, {
      kind: 'request',
      message: decoded,
      modern: false,
      session,
      headerVersion,
    }),
  );
}

/** The prepared request, unless its targets need scopes the caller lacks. */
function done(runtime: Runtime, config: HttpConfig, request: HttpRequest, work: Work): PrepareResult {
  const messages = work.kind === 'batch' ? work.items : 'message' in work ? [work.message] : [];
  const forbidden = scopeRefusal(runtime, config.auth, request.auth, messages);
  return forbidden ? { response: forbidden } : { prepared: { runtime, config, request, work } };
}

/** Work of an initialize-based session: its session found, then `MCP-Protocol-Version` checked. */
async function legacyWork(
  runtime: Runtime,
  config: HttpConfig,
  request: HttpRequest,
  lookup: Found | Promise<Found>,
  headerVersion: string | undefined,
  id: RequestId | null,
  work: (session: SessionRef) => PrepareResult,
): Promise<PrepareResult> {
  const found = await lookup;
  if ('response' in found) return found;
  const versionProblem = legacyVersionProblem(runtime, headerVersion, id);
  if (versionProblem) return { response: versionProblem };
  return work(found.session);
}

/** Path, repeated fields, Host and Origin: the checks that need nothing but the request's head. */
function admit(config: HttpConfig, request: HttpRequest): HttpJsonResponse | undefined {
  if (config.path !== undefined) {
    const query = request.path.indexOf('?');
    const path = query < 0 ? request.path : request.path.slice(0, query);
    if (path !== config.path) return refusal('SNODO_ERR_NOT_FOUND', null, `Not found: ${path}`);
  }
  const repeated = repeatedField(request);
  if (repeated !== undefined && repeated !== 'origin') {
    return refusal(
      'SNODO_ERR_REPEATED_FIELD',
      null,
      `Bad Request: more than one ${fieldName(repeated)} value`,
    );
  }
  if (config.hostRules && !hostAllowed(request.headers.host, config.hostRules)) {
    return refusal('SNODO_ERR_HOST_FORBIDDEN', null, 'Forbidden: Host is not allowed');
  }
  const origin = request.headers.origin;
  if (origin !== undefined && (repeated === 'origin' || !originAllowed(origin, config, request.url))) {
    return refusal('SNODO_ERR_ORIGIN_FORBIDDEN', null, 'Forbidden: Origin is not allowed');
  }
  return undefined;
}

/**
 * The 2026-07-28 rules, in this order: `_meta` complete (-32602), `MCP-Protocol-Version` present
 * and equal to `_meta`'s version (-32020), that version served (-32022), `Mcp-Method`, `Mcp-Name`
 * and `Mcp-Param-*` equal to the body (-32020), and `initialize`, which does not exist there (-32601).
 */
function modernProblem(
  runtime: Runtime,
  request: HttpRequest,
  message: RequestMessage,
  headerVersion: string | undefined,
  metaVersion: unknown,
): HttpJsonResponse | undefined {
  const { id, method, params } = message;
  const selected = selectRevision(runtime, {
    method: 'server/discover',
    params,
    session: undefined,
    headerVersion,
  });
  if (ProtocolError.is(selected) && selected.code !== ErrorCode.UnsupportedProtocolVersion) {
    return revisionRefused(id, selected);
  }
  if (headerVersion === undefined) return mismatch(id, 'MCP-Protocol-Version header is required');
  if (headerVersion !== metaVersion) {
    return mismatch(
      id,
      `MCP-Protocol-Version header "${headerVersion}" does not match _meta["${META.protocolVersion}"]`,
    );
  }
  if (ProtocolError.is(selected)) return revisionRefused(id, selected);

  const methodHeader = request.headers['mcp-method'];
  if (methodHeader === undefined) return mismatch(id, 'Mcp-Method header is required');
  if (trimOws(methodHeader) !== method)
    return mismatch(id, `Mcp-Method header does not match the body method "${method}"`);
  const key = NAMED[method] ?? runtime.extensionMethods.get(method)?.nameParams.get(method);
  const named = key === undefined ? undefined : params?.[key];
  if (typeof named === 'string') {
    const nameHeader = request.headers['mcp-name'];
    if (nameHeader === undefined) return mismatch(id, `Mcp-Name header is required for ${method}`);
    const value = decodeHeaderValue(nameHeader);
    if (value === undefined)
      return mismatch(id, 'Mcp-Name header is not valid =?base64?…?= (canonical base64 of UTF-8)');
    if (value !== named) return mismatch(id, `Mcp-Name header does not match params.${key}`);
  }
  if (method === 'tools/call' && typeof named === 'string') {
    const annotated = paramHeadersOf(runtime).get(named);
    if (annotated) {
      const problem = paramHeaderProblem(annotated, params?.arguments, request.headers);
      if (problem) return mismatch(id, problem);
    }
  }
  if (method === 'initialize') {
    return refusal('SNODO_ERR_NO_INITIALIZE', id, 'Method not found: initialize', {
      rpcCode: ErrorCode.MethodNotFound,
      data: { protocolVersion: headerVersion },
    });
  }
  return undefined;
}

function metaVersionOf(params: Record<string, unknown> | undefined): unknown {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null
    ? (meta as Record<string, unknown>)[META.protocolVersion]
    : undefined;
}

/** The session a legacy message names: 400 without `Mcp-Session-Id`, 404 when unknown or expired. */
function sessionOf(
  config: HttpConfig,
  request: HttpRequest,
  id: RequestId | null = null,
): Found | Promise<Found> {
  const sessionId = request.headers['mcp-session-id'];
  if (sessionId === undefined) {
    return {
      response: refusal(
        'SNODO_ERR_SESSION_REQUIRED',
        id,
        'Mcp-Session-Id header is required: send initialize first, or declare ' +
          `_meta["${META.protocolVersion}"] for a stateless request`,
      ),
    };
  }
  return findSession(config, request, sessionId, id);
}

/**
 * The session `Mcp-Session-Id` names, if this request's principal may use it: one created by
 * another principal is "not found" too (404, never 403: a session id must not be confirmed to
 * someone else), so a leaked or guessed id is no credential.
 */
async function findSession(
  config: HttpConfig,
  request: HttpRequest,
  rawId: string,
  id: RequestId | null = null,
): Promise<Found> {
  const sessionId = trimOws(rawId);
  const session = plausibleSessionId(sessionId) ? await config.sessions.get(sessionId) : undefined;
  if (session === undefined || !sessionServes(session, request.auth?.principal)) {
    return {
      response: refusal('SNODO_ERR_SESSION_NOT_FOUND', id, 'Session not found: initialize again'),
    };
  }
  return { session: { id: sessionId, session } };
}

/**
 * `MCP-Protocol-Version` inside an initialize-based session, by the 2025-06-18 transport's text:
 * a version the server does not serve (or not a version at all) is "invalid or unsupported", 400;
 * any other value, or none, is served at the session's revision. The spec's fallback to 2025-03-26
 * for an absent header applies only when the server has "no other way to identify the version",
 * and the revision negotiated at initialize is one; a served revision unlike the negotiated one is
 * neither invalid nor unsupported, and the session decides (the official SDK servers do the same,
 * and conformance 0.1.16 sends `2025-03-26` inside a 2025-11-25 session). A 2025-03-26 client
 * never sends the header.
 */
function legacyVersionProblem(
  runtime: Runtime,
  headerVersion: string | undefined,
  id: RequestId | null = null,
): HttpJsonResponse | undefined {
  if (headerVersion === undefined || runtime.legacyVersions.includes(headerVersion as ProtocolVersion))
    return undefined;
  const error = ProtocolError.unsupportedVersion(headerVersion, runtime.legacyVersions);
  return refusal(
    'SNODO_ERR_REVISION_REFUSED',
    id,
    `MCP-Protocol-Version header "${headerVersion}" is not a revision this session can use`,
    { rpcCode: error.code, data: error.data },
  );
}

function revisionRefused(id: RequestId | null, error: ProtocolError): HttpJsonResponse {
  return refusal('SNODO_ERR_REVISION_REFUSED', id, error.message, { rpcCode: error.code, data: error.data });
}

function mismatch(id: RequestId | null, message: string): HttpJsonResponse {
  return refusal('SNODO_ERR_HEADER_MISMATCH', id, message, { rpcCode: ErrorCode.HeaderMismatch });
}

function notAccepted(id: RequestId | null, message: string): HttpJsonResponse {
  return refusal('SNODO_ERR_MESSAGE_REFUSED', id, message);
}

function methodNotAllowed(runtime: Runtime): HttpJsonResponse {
  const allow = runtime.legacyVersions.length > 0 ? 'POST, GET, DELETE' : 'POST';
  return {
    ...refusal('SNODO_ERR_METHOD_NOT_ALLOWED', null, `Method not allowed: use ${allow}`, {
      headers: { 'content-type': 'application/json', allow },
    }),
  };
}
