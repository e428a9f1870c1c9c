import { UI_MIME_TYPE, UI_RESOURCE_URI_META_KEY } from '@snodo/core';
import { mapContents } from '../links.js';
import type { Entry } from './snapshot.js';

/**
 * MCP Apps in the catalog (seed 002's UI resources, the `io.modelcontextprotocol/ui` extension).
 * Each entry keeps two listings, as core's tools do: `listing` for frontends that did not declare
 * the extension (no UI link; a UI page is plain `text/html`), `uiListing` for those that did (the
 * tool's `_meta.ui.resourceUri`, and the older `_meta["ui/resourceUri"]`, rewritten to the page's
 * exposed URI). A link whose page is not in the backend's catalog is not advertised at all: the
 * frontend could not load it through the proxy.
 */
export function withUiListing(entry: Entry, expose: (uri: string) => string | undefined): Entry {
  const { listing } = entry;
  if (entry.item.kind === 'resource') {
    if (listing.mimeType !== UI_MIME_TYPE) return entry;
    return { ...entry, listing: { ...listing, mimeType: 'text/html' }, uiListing: listing };
  }
  if (entry.item.kind !== 'tool') return entry;
  const meta = listing._meta as Record<string, unknown> | undefined;
  if (typeof meta !== 'object' || meta === null || !('ui' in meta || UI_RESOURCE_URI_META_KEY in meta)) {
    return entry;
  }
  const { ui, [UI_RESOURCE_URI_META_KEY]: older, ...rest } = meta;
  const typedUi = typeof ui === 'object' && ui !== null ? (ui as Record<string, unknown>) : {};
  const linked = typeof typedUi.resourceUri === 'string' ? typedUi.resourceUri : older;
  const { _meta: _, ...bare } = listing;
  const plain = Object.keys(rest).length > 0 ? { ...bare, _meta: rest } : bare;
  const exposed = typeof linked === 'string' ? expose(linked) : undefined;
  if (exposed === undefined) return { ...entry, listing: plain };
  const uiMeta = { ...rest, ui: { ...typedUi, resourceUri: exposed }, [UI_RESOURCE_URI_META_KEY]: exposed };
  return { ...entry, listing: plain, uiListing: { ...bare, _meta: uiMeta } };
}

/** A read result for a frontend that did not declare the extension: a UI page is plain `text/html`, without `_meta.ui`. */
export function withoutUi(result: Record<string, unknown>): Record<string, unknown> {
  return mapContents(result, (item) => {
    if (item.mimeType !== UI_MIME_TYPE) return item;
    const { _meta, ...rest } = item;
    const meta = _meta as Record<string, unknown> | undefined;
    const { ui: _, ...others } = typeof meta === 'object' && meta !== null ? meta : {};
    return { ...rest, mimeType: 'text/html', ...(Object.keys(others).length > 0 ? { _meta: others } : {}) };
  });
}
