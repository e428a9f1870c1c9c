import type { Runtime } from '@snodo/core';
import { StdioConnection } from './connection.js';
import { redirectConsole } from './console-redirect.js';
import { resolveOptions, type ServeOptions } from './options.js';

/**
 * Serves `runtime` over newline-delimited JSON-RPC on `options.input`/`options.output`
 * (default stdin/stdout) until the input ends, then resolves once every admitted request has
 * finished and its response was written. Rejects with a `SnodoError`: `SNODO_ERR_INVALID_OPTION`
 * at once for a bad option, `SNODO_ERR_WRITE_TIMEOUT` when the output stays blocked longer than
 * `writeTimeout`, `SNODO_ERR_WRITE_FAILED` / `SNODO_ERR_READ_FAILED` when a stream fails; each of
 * those stops reading and aborts all work first.
 *
 * On `process.stdout` (unless `console: 'keep'`), the global console writes to stderr from the
 * call until serving ends, however it ends.
 */
export async function serve(runtime: Runtime, options: ServeOptions = {}): Promise<void> {
  const settings = resolveOptions(options, runtime.logger);
  const restoreConsole = settings.redirectConsole ? redirectConsole() : undefined;
  try {
    await new StdioConnection(runtime, settings).run();
  } finally {
    restoreConsole?.();
  }
}
