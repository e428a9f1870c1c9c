import { ProtocolError } from '../errors/protocol-error.js';

/**
 * Opaque cursors: base64url of `v1:<offset>`. Lists are in a deterministic order, so an offset is
 * a stable position. A cursor that does not decode, or points past the list, is -32602.
 */
export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): Page<T> {
  const start = cursor === undefined ? 0 : decodeCursor(cursor, items.length);
  const end = Math.min(start + pageSize, items.length);
  return { items: items.slice(start, end), nextCursor: end < items.length ? encodeCursor(end) : undefined };
}

export function encodeCursor(offset: number): string {
  return btoa(`v1:${offset}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeCursor(cursor: unknown, length: number): number {
  if (typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,32}$/.test(cursor)) {
    let text = '';
    try {
      text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    } catch {
      text = '';
    }
    const match = /^v1:(0|[1-9][0-9]{0,9})$/.exec(text);
    if (match) {
      const offset = Number(match[1]);
      if (offset > 0 && offset < length) return offset;
    }
  }
  throw ProtocolError.invalidParams('Invalid cursor', { cursor });
}
