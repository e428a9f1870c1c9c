// Helpers shared by the server programs. Every server listens on 127.0.0.1, port 0, and reports
// its URL to the runner with `ready(url)`; a server whose implementation is not built yet reports
// `unavailable` instead and exits 3, so the runner prints "not available" for that row.
import { createServer } from 'node:http';
import process from 'node:process';
import { importSnodo } from '../lib/checkout.mjs';
import { ready } from './control.mjs';

export { ready };

export const HOST = '127.0.0.1';

/** `--name value` from argv, or the fallback. */
export function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

export function flag(name) {
  return process.argv.includes(`--${name}`);
}

/**
 * Imports a module, or reports the row as not available and exits. A workspace package comes from
 * the checkout named by SNODO_BENCH_ROOT when set (the `--base` rows), from this one otherwise.
 */
export async function importOrUnavailable(specifier) {
  try {
    return await importSnodo(specifier);
  } catch (error) {
    unavailable(`${specifier}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

export function unavailable(reason) {
  if (typeof process.send === 'function') process.send({ type: 'unavailable', reason });
  else console.error(`not available: ${reason}`);
  process.exitCode = 3;
  // Let the IPC message flush before exiting.
  setImmediate(() => process.exit(3));
  return new Promise(() => {});
}

/** Serves `handler` on plain node:http at 127.0.0.1:0 and reports ready with the /mcp URL. */
export function serveNodeHttp(handler, onClose = async () => {}) {
  const server = createServer(handler);
  server.listen(0, HOST, () => ready(`http://${HOST}:${server.address().port}/mcp`));
  const stop = async () => {
    await onClose();
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return server;
}

/** Reads a node:http request body to a string (for the peers that take a parsed body). */
export function readText(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The floor servers' answer (bare-jsonrpc-http.mjs, bare-jsonrpc-stdio.mjs): `echo`'s text back,
 * anything else -32601. No check of any kind: the least a JSON-RPC server must do.
 */
export function echoAnswer(request) {
  if (request.method === 'tools/call' && request.params?.name === 'echo') {
    const content = [{ type: 'text', text: request.params.arguments?.text }];
    return { jsonrpc: '2.0', id: request.id, result: { content } };
  }
  return { jsonrpc: '2.0', id: request.id ?? null, error: { code: -32601, message: 'Method not found' } };
}
