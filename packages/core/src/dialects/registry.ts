import type { ProtocolVersion } from '../protocol/types.js';
import type { Dialect } from './dialect.js';
import { rev20250326, rev20250618, rev20251125 } from './legacy-revisions.js';
import { rev20260728 } from './rev2026-07-28.js';

/** Every dialect Snodo has, newest first. */
export const DIALECTS: readonly Dialect[] = [rev20260728, rev20251125, rev20250618, rev20250326];

const BY_VERSION: ReadonlyMap<string, Dialect> = new Map(
  DIALECTS.map((dialect) => [dialect.version, dialect]),
);

export function dialectFor(version: string): Dialect | undefined {
  return BY_VERSION.get(version);
}

export function isKnownVersion(version: string): version is ProtocolVersion {
  return BY_VERSION.has(version);
}
