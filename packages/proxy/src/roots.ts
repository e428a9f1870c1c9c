import type { ListRootsResult } from '@snodo/client';
import { ClientRequestError, ProtocolError } from '@snodo/core';
import type { ClientNotification } from '@snodo/core/internal';
import { type Owner, ownerOf } from './principal.js';

const ROOTS_CHANGED = 'notifications/roots/list_changed';

/**
 * Asks one frontend connection for its roots outside any call of its: the frontend of a principal
 * that last said its roots changed, for the `roots/list` its backend sessions send in reply.
 */
export type RootsSource = (signal: AbortSignal) => Promise<ListRootsResult>;

/** What the proxy does with a frontend's roots change: relay it to that principal's backend sessions. */
export interface RootsRelay {
  rootsChanged(owner: Owner, source: RootsSource): void;
}

/** A frontend's answer to `roots/list`, as the backend gets it: `{ roots: [...] }`, or a JSON-RPC error. */
async function ask(request: NonNullable<ClientNotification['request']>, signal: AbortSignal) {
  let answer: unknown;
  try {
    answer = await request('roots/list', undefined, signal);
  } catch (error) {
    if (error instanceof ClientRequestError) throw new ProtocolError(error.code, error.message, error.data);
    throw error;
  }
  const roots = (answer as { roots?: unknown } | null)?.roots;
  if (typeof answer !== 'object' || answer === null || !Array.isArray(roots)) {
    throw new ProtocolError(-32603, 'roots/list: the frontend answered without a roots array');
  }
  return answer as ListRootsResult;
}

/**
 * `Runtime.onClientNotification` of a proxy runtime: a frontend that declared roots and says they
 * changed is its principal's roots source from now on, and that principal's backend sessions (its
 * own only) are told, so they list the roots again.
 */
export function clientNotificationHandler(relay: RootsRelay): (note: ClientNotification) => void {
  return (note) => {
    const { request } = note;
    if (note.method !== ROOTS_CHANGED || !request || note.clientCapabilities?.roots === undefined) return;
    relay.rootsChanged(ownerOf(note.auth, note.connectionId), (signal) => ask(request, signal));
  };
}
