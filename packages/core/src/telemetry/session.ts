import type { Attributes } from '@opentelemetry/api';
import { instruments } from './instruments.js';
import { ATTR } from './names.js';
import { loadOtel, type Otel } from './otel.js';

/**
 * Measures one session of a transport (a stdio connection): `snodo.sessions.active` while it is
 * open, `mcp.server.session.duration` when the returned function ends it (idempotent). `describe`
 * gives the session's attributes at its end (its revision is known only after initialize).
 */
export function trackSession(describe: () => Attributes = () => ({})): () => void {
  const started = performance.now();
  let counted: Otel | undefined;
  let ended = false;
  const begin = (otel: Otel | null) => {
    if (!otel || ended) return;
    counted = otel;
    instruments(otel).sessions.add(1);
  };
  const loaded = loadOtel();
  if (loaded instanceof Promise) void loaded.then(begin);
  else begin(loaded);
  return () => {
    if (ended) return;
    ended = true;
    if (!counted) return;
    const { sessions, serverSession } = instruments(counted);
    sessions.add(-1);
    serverSession.record((performance.now() - started) / 1000, describe());
  };
}

/** Session attributes of a stdio connection. */
export function pipeSession(protocolVersion: string | undefined): Attributes {
  return protocolVersion === undefined
    ? { [ATTR.networkTransport]: 'pipe' }
    : { [ATTR.networkTransport]: 'pipe', [ATTR.protocolVersion]: protocolVersion };
}
