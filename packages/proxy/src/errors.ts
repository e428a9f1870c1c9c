import { SnodoError } from '@snodo/core';

/**
 * Every local error of the proxy, declared once: its code, its kind (the name the proxy's
 * specification gives it) and what it means. Errors sent to frontends are core's `ProtocolError`;
 * these are thrown by `createProxy`, `addBackend`, `refreshBackend` and `removeBackend`.
 * `test/errors.test.ts` pins this table and the README lists every row.
 */
export const PROXY_ERRORS = Object.freeze({
  SNODO_ERR_INVALID_OPTION: { kind: 'invalid_option', message: 'An option breaks its rule' },
  SNODO_ERR_BACKEND_LIMIT: { kind: 'backend_limit', message: 'The proxy holds maxBackends backends already' },
  SNODO_ERR_CATALOG_LIMIT: {
    kind: 'catalog_limit',
    message: 'The merged catalog would exceed maxCatalogItems',
  },
  SNODO_ERR_DUPLICATE_ID: { kind: 'duplicate_id', message: 'A backend with this id exists' },
  SNODO_ERR_DUPLICATE_NAME: {
    kind: 'duplicate_name',
    message: 'Names would appear twice in the merged catalog',
  },
  SNODO_ERR_URI_COLLISION: {
    kind: 'uri_collision',
    message: 'Resource URIs would appear twice in the merged catalog',
  },
  SNODO_ERR_INVALID_NAME: { kind: 'invalid_name', message: 'Generated names break ^[A-Za-z0-9_.-]{1,64}$' },
  SNODO_ERR_UNSUPPORTED_TEMPLATE: {
    kind: 'unsupported_template',
    message: 'A resource template is outside the supported RFC 6570 subset',
  },
  SNODO_ERR_BACKEND_CONNECT: { kind: 'connect_failed', message: 'The backend could not be connected' },
  SNODO_ERR_BACKEND_CATALOG: { kind: 'catalog_failed', message: 'The backend could not list its catalog' },
  SNODO_ERR_UNKNOWN_BACKEND: { kind: 'unknown_backend', message: 'No backend has this id' },
  SNODO_ERR_PROXY_CLOSED: { kind: 'closed', message: 'The proxy is closed' },
});

export type ProxyErrorCode = keyof typeof PROXY_ERRORS;
export type ProxyErrorKind = (typeof PROXY_ERRORS)[ProxyErrorCode]['kind'];

const BRAND = Symbol.for('snodo.proxy.ProxyError');

/**
 * A local failure of the proxy. `kind` is the specification's name (`backend_limit`,
 * `catalog_limit`, `duplicate_name`, `unsupported_template`, …); `details` holds its data
 * (`{ limit }`, `{ names }`, `{ template, reason }`, …). `ProxyError.is` works across copies.
 */
export class ProxyError extends SnodoError {
  readonly kind: ProxyErrorKind;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ProxyErrorCode, detail: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(code, `${PROXY_ERRORS[code].message}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'ProxyError';
    this.kind = PROXY_ERRORS[code].kind;
    this.details = Object.freeze({ ...details });
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override is(value: unknown): value is ProxyError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

export function optionError(detail: string): ProxyError {
  return new ProxyError('SNODO_ERR_INVALID_OPTION', detail);
}
