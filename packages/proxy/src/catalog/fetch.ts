import type { Client, Page } from '@snodo/client';
import { ProtocolError, type ServerCapabilities } from '@snodo/core';
import { ProxyError } from '../errors.js';
import {
  type BackendSnapshot,
  buildSnapshot,
  type FetchedList,
  type ListHint,
  type ListKind,
} from './snapshot.js';

const LIST_METHODS = {
  tools: (client: Client, cursor: string | undefined) =>
    client.listTools({ fresh: true, ...(cursor ? { cursor } : {}) }),
  prompts: (client: Client, cursor: string | undefined) =>
    client.listPrompts({ fresh: true, ...(cursor ? { cursor } : {}) }),
  resources: (client: Client, cursor: string | undefined) =>
    client.listResources({ fresh: true, ...(cursor ? { cursor } : {}) }),
  templates: (client: Client, cursor: string | undefined) =>
    client.listResourceTemplates({ fresh: true, ...(cursor ? { cursor } : {}) }),
} satisfies Record<ListKind, (client: Client, cursor: string | undefined) => Promise<Page<unknown>>>;

/** Pages one list may have; a backend looping on cursors is caught sooner by the repeated-cursor check. */
const MAX_LIST_PAGES = 1_000;

function offers(capabilities: ServerCapabilities, kind: ListKind): boolean {
  if (kind === 'tools') return capabilities.tools !== undefined;
  if (kind === 'prompts') return capabilities.prompts !== undefined;
  return capabilities.resources !== undefined;
}

/**
 * Every page of one list, and its cache hint: `ttlMs` the smallest of its pages (absent, as from
 * initialize-based backends, means 0: immediately stale), `private` unless every page was public.
 * Stops with `catalog_limit` as soon as it holds more than `maxItems` (memory stays bounded).
 */
async function fetchList(client: Client, id: string, kind: ListKind, maxItems: number): Promise<FetchedList> {
  const items: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let ttlMs = Number.POSITIVE_INFINITY;
  let cacheScope: ListHint['cacheScope'] = 'public';
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    let result: Page<unknown>;
    try {
      result = await LIST_METHODS[kind](client, cursor);
    } catch (error) {
      // A backend without resource templates may not know the method: an empty list.
      if (kind === 'templates' && ProtocolError.is(error) && error.code === -32601) break;
      throw error;
    }
    for (const entry of result.items) items.push(entry as Record<string, unknown>);
    if (items.length > maxItems) {
      throw new ProxyError('SNODO_ERR_CATALOG_LIMIT', `backend "${id}" lists more than ${maxItems} ${kind}`, {
        limit: maxItems,
        backend: id,
      });
    }
    const ttl = result.result.ttlMs;
    ttlMs = Math.min(ttlMs, typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0);
    if (result.result.cacheScope !== 'public') cacheScope = 'private';
    cursor = result.nextCursor;
    if (cursor === undefined) break;
    if (seen.has(cursor)) {
      throw new ProxyError(
        'SNODO_ERR_BACKEND_CATALOG',
        `backend "${id}" returned the ${kind} cursor ${JSON.stringify(cursor)} twice`,
      );
    }
    seen.add(cursor);
  }
  return { items, hint: { ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0, cacheScope } };
}

/** Lists everything a connected backend offers (by its capabilities) and validates it as one snapshot. */
export async function fetchSnapshot(
  client: Client,
  naming: { readonly id: string; readonly prefix: string; readonly separator: string },
  maxItems: number,
): Promise<BackendSnapshot> {
  const capabilities = client.serverCapabilities;
  const empty: FetchedList = { items: [], hint: { ttlMs: 0, cacheScope: 'private' } };
  const lists = { tools: empty, prompts: empty, resources: empty, templates: empty };
  for (const kind of ['tools', 'prompts', 'resources', 'templates'] as const) {
    if (offers(capabilities, kind)) lists[kind] = await fetchList(client, naming.id, kind, maxItems);
  }
  return buildSnapshot(naming, capabilities, lists);
}
