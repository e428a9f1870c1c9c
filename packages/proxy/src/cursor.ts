import { ProtocolError } from '@snodo/core';
import type { ListKind } from './catalog/snapshot.js';

/**
 * The one opaque cursor of a merged list, whatever backends contribute: base64url of
 * `{"v":1,"k":<list>,"a":<key>}`, where `key` is the exposed name (or URI) of the last item of
 * the page. Keys are unique across backends and the list is sorted by key, so the next page starts
 * after it even when backends were added, refreshed or removed in between, or when the caller's
 * policy hides items.
 */
export function encodeCursor(kind: ListKind, after: string): string {
  return Buffer.from(JSON.stringify({ v: 1, k: kind, a: after })).toString('base64url');
}

/** The key a cursor continues after; -32602 when it is not a cursor of this list. */
export function decodeCursor(kind: ListKind, cursor: unknown): string | undefined {
  if (cursor === undefined) return undefined;
  if (typeof cursor === 'string' && cursor.length <= 16_384 && /^[A-Za-z0-9_-]+$/.test(cursor)) {
    try {
      const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
      if (value?.v === 1 && value.k === kind && typeof value.a === 'string') return value.a;
    } catch {
      // Not JSON: an invalid cursor.
    }
  }
  throw ProtocolError.invalidParams('Invalid cursor', { cursor });
}
