import { UI_EXTENSION } from '@snodo/core';
import { declaresExtension, type Operation } from '@snodo/core/internal';
import type { Entry, ListKind } from '../catalog/snapshot.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { type Scope, visible } from './context.js';

function firstAfter(entries: readonly Entry[], key: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((entries[mid] as Entry).key <= key) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * A merged list: sorted by exposed key, filtered by `canList` for the caller, paged with the one
 * compound cursor; `ttlMs` the smallest of the contributing backends', `private` if any of theirs
 * was or the policy filters lists.
 */
export function listOperation(scope: Scope, kind: ListKind, field: string): Operation {
  const { core, policy } = scope;
  const privateLists = policy?.canList !== undefined;
  return (call) => {
    // MCP Apps links and pages only for frontends that declared the extension.
    const ui = declaresExtension(call.selection.clientCapabilities, UI_EXTENSION);
    const after = decodeCursor(kind, call.params.cursor);
    const catalog = core.merged();
    const entries = catalog.lists[kind];
    const page: Entry[] = [];
    let nextCursor: string | undefined;
    for (let i = after === undefined ? 0 : firstAfter(entries, after); i < entries.length; i++) {
      const entry = entries[i] as Entry;
      if (!visible(scope, call.auth, entry)) continue;
      if (page.length === core.pageSize) {
        nextCursor = encodeCursor(kind, (page[page.length - 1] as Entry).key);
        break;
      }
      page.push(entry);
    }
    let ttlMs = Number.POSITIVE_INFINITY;
    let cacheScope: 'public' | 'private' = privateLists ? 'private' : 'public';
    for (const id of new Set(page.map((entry) => entry.item.backend))) {
      const hint = catalog.snapshots.get(id)?.hints[kind];
      ttlMs = Math.min(ttlMs, hint?.ttlMs ?? 0);
      if (hint?.cacheScope !== 'public') cacheScope = 'private';
    }
    // Nothing contributed: nothing to say how long it stays true.
    if (page.length === 0) cacheScope = 'private';
    return {
      [field]: page.map((entry) => (ui ? (entry.uiListing ?? entry.listing) : entry.listing)),
      ...(nextCursor === undefined ? {} : { nextCursor }),
      ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0,
      cacheScope,
    };
  };
}
