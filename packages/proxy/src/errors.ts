import { defineErrors, SnodoError } from '@snodo/core';
import { branded, optionError as coreOptionError, isBranded, rowMessage } from '@snodo/core/internal';

/**
 * Every local error of the proxy, declared once: its code and what it means. Errors sent to
 * frontends are core's `ProtocolError`; these are thrown by `createProxy`, `addBackend`,
 * `refreshBackend` and `removeBackend`. A bad option is core's `SNODO_ERR_INVALID_OPTION`, as in
 * every package. `test/options.test.ts` pins this table and the README lists every row.
 */
export const PROXY_ERRORS = defineErrors({
  SNODO_ERR_BACKEND_LIMIT: ['The proxy holds maxBackends backends already'],
  SNODO_ERR_CATALOG_LIMIT: ['The merged catalog would exceed maxCatalogItems'],
  SNODO_ERR_DUPLICATE_ID: ['A backend with this id exists'],
  SNODO_ERR_DUPLICATE_NAME: ['Names would appear twice in the merged catalog'],
  SNODO_ERR_URI_COLLISION: ['Resource URIs would appear twice in the merged catalog'],
  SNODO_ERR_INVALID_NAME: ['Generated names break ^[A-Za-z0-9_.-]{1,64}$'],
  SNODO_ERR_BACKEND_TEMPLATE: ["A backend's resource template is outside the supported RFC 6570 subset"],
  SNODO_ERR_BACKEND_CONNECT: ['The backend could not be connected'],
  SNODO_ERR_BACKEND_CATALOG: ['The backend could not list its catalog'],
  SNODO_ERR_UNKNOWN_BACKEND: ['No backend has this id'],
  SNODO_ERR_PROXY_CLOSED: ['The proxy is closed'],
});

/** The proxy specification's name of each error. */
const KINDS = {
  SNODO_ERR_BACKEND_LIMIT: 'backend_limit',
  SNODO_ERR_CATALOG_LIMIT: 'catalog_limit',
  SNODO_ERR_DUPLICATE_ID: 'duplicate_id',
  SNODO_ERR_DUPLICATE_NAME: 'duplicate_name',
  SNODO_ERR_URI_COLLISION: 'uri_collision',
  SNODO_ERR_INVALID_NAME: 'invalid_name',
  SNODO_ERR_BACKEND_TEMPLATE: 'unsupported_template',
  SNODO_ERR_BACKEND_CONNECT: 'connect_failed',
  SNODO_ERR_BACKEND_CATALOG: 'catalog_failed',
  SNODO_ERR_UNKNOWN_BACKEND: 'unknown_backend',
  SNODO_ERR_PROXY_CLOSED: 'closed',
} as const satisfies Record<keyof typeof PROXY_ERRORS, string>;

export type ProxyErrorCode = keyof typeof PROXY_ERRORS;
export type ProxyErrorKind = (typeof KINDS)[ProxyErrorCode];

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
    super(code, rowMessage(PROXY_ERRORS[code], detail), cause === undefined ? undefined : { cause });
    this.name = 'ProxyError';
    this.kind = KINDS[code];
    this.details = Object.freeze({ ...details });
  }

  static override is(value: unknown): value is ProxyError {
    return isBranded(value, BRAND);
  }

  static {
    branded(ProxyError, BRAND);
  }
}

/** Core's `SNODO_ERR_INVALID_OPTION`, the one code of a bad option in every package. */
export function optionError(detail: string): SnodoError {
  return coreOptionError(detail);
}
