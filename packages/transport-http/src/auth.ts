import { createResourceServer, type ResourceServer, type ResourceServerOptions } from '@snodo/core';
import { isResourceServer } from '@snodo/core/internal';

/** The listener's `auth`: a started resource server, or its options with `resource` defaulting to the listener's URL. */
export type ListenAuth = ResourceServer | (Omit<ResourceServerOptions, 'resource'> & { resource?: string });

/**
 * The resource server of the listener's `auth`, started once the listener knows its URL (with port
 * 0 that is after binding): its metadata, JWKS and configuration errors surface from `listen()`.
 */
export function startAuth(auth: ListenAuth | undefined, url: string): Promise<ResourceServer> | undefined {
  if (auth === undefined || isResourceServer(auth)) return undefined;
  return createResourceServer({ ...auth, resource: auth.resource ?? url });
}
