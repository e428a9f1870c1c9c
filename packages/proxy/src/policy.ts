import type { AuthInfo } from '@snodo/core';

/** One entry of the merged catalog, as the authorization policy sees it. */
export interface CatalogItem {
  readonly kind: 'tool' | 'prompt' | 'resource' | 'template';
  /** The id of the backend that owns it. */
  readonly backend: string;
  /** Tools and prompts: the name frontends see (`<prefix>.<name>`). Resources and templates: their `name`. */
  readonly name: string;
  /** Resources: the URI frontends see; templates: the URI template they see (`mcp-proxy://<id>/…`). */
  readonly uri?: string;
  /** The backend's own name (tools, prompts), URI (resources) or URI template (templates). */
  readonly original: string;
  /** The item as the backend listed it. */
  readonly definition: Readonly<Record<string, unknown>>;
}

/** Who is asking: the identity the frontend transport verified (`ctx.auth`), or undefined. */
export type Principal = AuthInfo | undefined;

/**
 * Who may see and use what. Every method is optional (absent: allowed) and synchronous: it runs
 * for every listed item and again before every subscription update is delivered. The backend's
 * own policy still applies to whatever the proxy forwards.
 * - `canList` filters discovery (lists, completions, subscription admission); what a principal
 *   cannot list is unknown to it (-32602), never "forbidden".
 * - `canCall` (tools/call), `canGet` (prompts/get), `canRead` (resources/read: the item is the
 *   exact resource or the one template that matches, `uri` the URI read) and `canSubscribe`
 *   (resource updates, checked at admission and before each delivery).
 */
export interface AuthorizationPolicy {
  canList?(principal: Principal, item: CatalogItem): boolean;
  canCall?(principal: Principal, item: CatalogItem): boolean;
  canRead?(principal: Principal, item: CatalogItem, uri: string): boolean;
  canGet?(principal: Principal, item: CatalogItem): boolean;
  canSubscribe?(principal: Principal, item: CatalogItem): boolean;
}

const METHODS = ['canList', 'canCall', 'canRead', 'canGet', 'canSubscribe'] as const;

/** The problem with a policy value, or undefined when it is one. */
export function policyProblem(name: string, policy: unknown): string | undefined {
  if (policy === undefined) return undefined;
  if (typeof policy !== 'object' || policy === null)
    return `${name} must be an object with canList/canCall/canRead/canGet/canSubscribe functions`;
  for (const method of METHODS) {
    const value = (policy as Record<string, unknown>)[method];
    if (value !== undefined && typeof value !== 'function') return `${name}.${method} must be a function`;
  }
  return undefined;
}

/** A policy check that is `true` when the method is absent; a throwing policy denies. */
export function allowed(
  policy: AuthorizationPolicy | undefined,
  method: (typeof METHODS)[number],
  principal: Principal,
  item: CatalogItem,
  uri?: string,
): boolean {
  const check = policy?.[method] as ((p: Principal, i: CatalogItem, u?: string) => boolean) | undefined;
  if (!check) return true;
  try {
    return check.call(policy, principal, item, uri) === true;
  } catch {
    return false;
  }
}
