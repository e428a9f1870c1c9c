import { dispatch, dispatchBatch, openSessionNotifications, type Runtime } from '@snodo/core';
import { type Dispatcher, StdioConnection } from './connection.js';
import { resolveOptions, type ServeOptions } from './options.js';

/**
 * Serves `runtime` over newline-delimited JSON-RPC on `options.input`/`options.output`
 * (default stdin/stdout) until the input ends, then resolves once every admitted request has
 * finished and its response was written. Rejects with a `SnodoError`: `SNODO_ERR_INVALID_OPTION`
 * at once for a bad option, `SNODO_ERR_WRITE_TIMEOUT` when the output stays blocked longer than
 * `writeTimeout`, `SNODO_ERR_WRITE_FAILED` / `SNODO_ERR_READ_FAILED` when a stream fails; each of
 * those stops reading and aborts all work first.
 */
export async function serve(runtime: Runtime, options: ServeOptions = {}): Promise<void> {
  const settings = resolveOptions(options);
  const dispatcher: Dispatcher = {
    dispatch: (message, context) => dispatch(runtime, message, context),
    dispatchBatch: (items, context, options) => dispatchBatch(runtime, items, context, options),
    openSessionNotifications: (getSession) => openSessionNotifications(runtime, getSession),
  };
  await new StdioConnection(dispatcher, settings).run();
}
