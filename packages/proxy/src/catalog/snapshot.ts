import { parseUriTemplate, type ServerCapabilities, type UriTemplate, UriTemplateError } from '@snodo/core';
import { TOOL_NAME } from '../defaults.js';
import { ProxyError } from '../errors.js';
import { exposedName, exposedUri } from '../names.js';
import type { CatalogItem } from '../policy.js';
import { withUiListing } from './ui.js';

export type ListKind = 'tools' | 'prompts' | 'resources' | 'templates';
export const LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources', 'templates'];

/** The cache hint of one backend list: `ttlMs` the smallest of its pages, `private` if any page was. */
export interface ListHint {
  readonly ttlMs: number;
  readonly cacheScope: 'public' | 'private';
}

/** One backend list as fetched: every page's items and the list's hint. */
export interface FetchedList {
  readonly items: readonly Record<string, unknown>[];
  readonly hint: ListHint;
}

/** One item of the merged catalog: what the policy sees, what frontends list, and its sort key. */
export interface Entry {
  readonly item: CatalogItem;
  /** The backend's listing with the exposed name or URI. */
  readonly listing: Readonly<Record<string, unknown>>;
  /** Exposed name (tools, prompts), URI (resources) or URI template (templates): unique per kind. */
  readonly key: string;
  /** The listing for frontends that declared `io.modelcontextprotocol/ui`, when it differs (see `withUiListing`). */
  readonly uiListing?: Readonly<Record<string, unknown>>;
}

export interface TemplateEntry extends Entry {
  /** The backend's own template, parsed, for matching reads of `mcp-proxy://<id>/<uri>`. */
  readonly template: UriTemplate;
}

/** A backend's accepted catalog: validated once, immutable, replaced whole by the next refresh. */
export interface BackendSnapshot {
  readonly id: string;
  readonly capabilities: ServerCapabilities;
  readonly tools: readonly Entry[];
  readonly prompts: readonly Entry[];
  readonly resources: readonly Entry[];
  readonly templates: readonly TemplateEntry[];
  readonly hints: Readonly<Record<ListKind, ListHint>>;
  /** Exact resources by the backend's own URI. */
  readonly resourceByOriginal: ReadonlyMap<string, Entry>;
  readonly size: number;
}

interface Naming {
  readonly id: string;
  readonly prefix: string;
  readonly separator: string;
}

/**
 * Validates a backend's lists and exposes them: tools and prompts as `<prefix><separator><name>`
 * (each checked against `^[A-Za-z0-9_.-]{1,64}$`), resources and templates as
 * `mcp-proxy://<id>/<original>`. Throws `ProxyError` (`unsupported_template`, `invalid_name`,
 * `duplicate_name`, `uri_collision`), naming every offender.
 */
export function buildSnapshot(
  naming: Naming,
  capabilities: ServerCapabilities,
  lists: Readonly<Record<ListKind, FetchedList>>,
): BackendSnapshot {
  const { id } = naming;
  const templates: TemplateEntry[] = [];
  for (const definition of lists.templates.items) {
    const original = stringField(definition, 'uriTemplate', 'resource template');
    let template: UriTemplate;
    try {
      template = parseUriTemplate(original);
    } catch (error) {
      if (!UriTemplateError.is(error)) throw error;
      throw new ProxyError(
        'SNODO_ERR_BACKEND_TEMPLATE',
        `backend "${id}": ${JSON.stringify(original)}: ${error.reason}`,
        { backend: id, template: original, reason: error.reason },
      );
    }
    const key = exposedUri(id, original);
    templates.push({
      key,
      template,
      item: item('template', id, String(definition.name ?? original), original, definition, key),
      listing: { ...definition, uriTemplate: key },
    });
  }
  const tools = named('tool', naming, lists.tools.items);
  const prompts = named('prompt', naming, lists.prompts.items);
  const invalid = [...tools, ...prompts].filter((entry) => !TOOL_NAME.test(entry.key));
  if (invalid.length > 0) {
    const names = invalid.map((entry) => entry.key);
    throw new ProxyError(
      'SNODO_ERR_INVALID_NAME',
      `backend "${id}": ${names.map((name) => JSON.stringify(name)).join(', ')}`,
      { backend: id, names, originals: invalid.map((entry) => entry.item.original) },
    );
  }
  for (const [what, entries] of [
    ['tool', tools],
    ['prompt', prompts],
  ] as const) {
    const twice = duplicates(entries);
    if (twice.length > 0) {
      throw new ProxyError(
        'SNODO_ERR_DUPLICATE_NAME',
        `backend "${id}" lists the ${what} names ${twice.map((n) => JSON.stringify(n)).join(', ')} twice`,
        { backend: id, kind: what, names: twice },
      );
    }
  }
  const resources = lists.resources.items.map((definition): Entry => {
    const original = stringField(definition, 'uri', 'resource');
    const key = exposedUri(id, original);
    return {
      key,
      item: item('resource', id, String(definition.name ?? original), original, definition, key),
      listing: { ...definition, uri: key },
    };
  });
  for (const entries of [resources, templates]) {
    const twice = duplicates(entries);
    if (twice.length > 0) {
      throw new ProxyError(
        'SNODO_ERR_URI_COLLISION',
        `backend "${id}": ${twice.map((n) => JSON.stringify(n)).join(', ')}`,
        { backend: id, uris: twice },
      );
    }
  }
  const sort = <T extends Entry>(entries: T[]) =>
    Object.freeze(entries.sort((a, b) => compare(a.key, b.key)));
  const originals = new Set(resources.map((entry) => entry.item.original));
  const expose = (uri: string) =>
    originals.has(uri) || templates.some((entry) => entry.template.match(uri) !== null)
      ? exposedUri(id, uri)
      : undefined;
  const ui = (entries: Entry[]) => entries.map((entry) => withUiListing(entry, expose));
  const exposedResources = sort(ui(resources));
  return Object.freeze({
    id,
    capabilities,
    tools: sort(ui(tools)),
    prompts: sort(prompts),
    resources: exposedResources,
    templates: sort(templates),
    hints: Object.freeze({
      tools: lists.tools.hint,
      prompts: lists.prompts.hint,
      resources: lists.resources.hint,
      templates: lists.templates.hint,
    }),
    resourceByOriginal: new Map(exposedResources.map((entry) => [entry.item.original, entry])),
    size: tools.length + prompts.length + resources.length + templates.length,
  });
}

function named(
  kind: 'tool' | 'prompt',
  naming: Naming,
  definitions: readonly Record<string, unknown>[],
): Entry[] {
  return definitions.map((definition) => {
    const original = stringField(definition, 'name', kind);
    const key = exposedName(naming.prefix, naming.separator, original);
    return {
      key,
      item: item(kind, naming.id, key, original, definition),
      listing: { ...definition, name: key },
    };
  });
}

function item(
  kind: CatalogItem['kind'],
  backend: string,
  name: string,
  original: string,
  definition: Record<string, unknown>,
  uri?: string,
): CatalogItem {
  return Object.freeze({
    kind,
    backend,
    name,
    original,
    definition: Object.freeze({ ...definition }),
    ...(uri === undefined ? {} : { uri }),
  });
}

function stringField(definition: Record<string, unknown>, field: string, what: string): string {
  const value = definition?.[field];
  if (typeof value !== 'string' || value === '') {
    throw new ProxyError(
      'SNODO_ERR_BACKEND_CATALOG',
      `a ${what} without a ${field} string: ${JSON.stringify(definition)?.slice(0, 200)}`,
    );
  }
  return value;
}

function duplicates(entries: readonly Entry[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.key)) twice.add(entry.key);
    seen.add(entry.key);
  }
  return [...twice];
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
