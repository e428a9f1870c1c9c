/** Every default of the listener, named after what it bounds (core's HTTP defaults apply on top). */
import {
  DEFAULT_BODY_TIMEOUT,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_DRAIN_BYTES,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_REQUEST_TIMEOUT,
} from '@snodo/core';

/** Loopback only: a local MCP server must not be reachable from the network by default. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PATH = '/mcp';
/** Open connections; one accepted at the limit is closed before anything is read from it. */
export const DEFAULT_MAX_CONNECTIONS = 1_024;
/** The request head must be complete this long after accept (or after the previous response), in ms. */
export const DEFAULT_HEAD_TIMEOUT = 10_000;
/** Longest silence while a request is being read (each read), in ms. */
export const DEFAULT_READ_TIMEOUT = 5_000;
/** Largest request head (request line and headers), in bytes; more gets 431. */
export const DEFAULT_MAX_HEADER_BYTES = 16_384;
/** An idle kept-alive connection is closed after this long, in ms. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT = 5_000;
/** Requests served on one connection before it is closed; 1 means one request per connection. */
export const DEFAULT_MAX_REQUESTS_PER_CONNECTION = 1_000;
/** `close()` lets running requests finish for this long, then aborts them, in ms. */
export const DEFAULT_CLOSE_GRACE_PERIOD = 10_000;

export {
  // The request body must be complete this long after the end of the head, in ms (core's, every host's).
  DEFAULT_BODY_TIMEOUT,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_DRAIN_BYTES,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_REQUEST_TIMEOUT,
};
