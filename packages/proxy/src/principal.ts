import { createHash, randomUUID } from 'node:crypto';
import type { AuthInfo } from '@snodo/core';

/**
 * Who a backend session belongs to: the frontend caller, as its transport authenticated it.
 *
 *   auth.principal   ──► `principal:<p>`     one session per principal, whichever frontend it uses
 *   auth.token only  ──► `token:<sha-256>`   (the token itself is never kept)
 *   no identity, but a connection or session ──► `connection:<id>`  one anonymous principal each
 *   no identity, no connection (stateless 2026-07-28 HTTP) ──► `request:<uuid>`, ephemeral: its
 *       session lives as long as that request (and any input it waits for)
 *
 * Two owners share a backend session only when their keys are equal; the prefixes keep an
 * anonymous caller from ever taking an authenticated principal's key.
 */
export interface Owner {
  readonly key: string;
  /** What the policy sees (`ctx.auth`). */
  readonly auth: AuthInfo | undefined;
  readonly ephemeral: boolean;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The owner of a frontend request: its verified identity, else its connection, else itself. */
export function ownerOf(auth: AuthInfo | undefined, connectionId: string | undefined): Owner {
  if (typeof auth?.principal === 'string')
    return { key: `principal:${auth.principal}`, auth, ephemeral: false };
  if (typeof auth?.token === 'string') return { key: `token:${digest(auth.token)}`, auth, ephemeral: false };
  if (connectionId !== undefined) return { key: `connection:${connectionId}`, auth, ephemeral: false };
  return { key: `request:${randomUUID()}`, auth, ephemeral: true };
}
