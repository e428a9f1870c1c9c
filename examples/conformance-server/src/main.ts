#!/usr/bin/env node
// The conformance fixture's command line:
//   node dist/main.js --port N [--host H]   Streamable HTTP on http://127.0.0.1:N/mcp (0: a free port); prints the URL
//   node dist/main.js --stdio               newline-delimited JSON on stdin/stdout
import { parseArgs } from 'node:util';
import { listen } from '@snodo/transport-http';
import { serve } from '@snodo/transport-stdio';
import { createConformanceServer } from './server.js';

const USAGE = 'usage: main.js --port N [--host H] | --stdio';

const { values } = parseArgs({
  options: { stdio: { type: 'boolean', default: false }, port: { type: 'string' }, host: { type: 'string' } },
  strict: true,
});

if (values.stdio === (values.port !== undefined)) {
  console.error(`give exactly one of --stdio and --port N\n${USAGE}`);
  process.exit(2);
}

const runtime = createConformanceServer();

if (values.stdio) {
  serve(runtime)
    .then(() => runtime.tasks?.close())
    .catch((error: unknown) => {
      console.error(`conformance-server: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    });
} else {
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}\n${USAGE}`);
    process.exit(2);
  }
  const server = await listen({
    runtime,
    port,
    ...(values.host === undefined ? {} : { host: values.host }),
    // dns-rebinding-protection sends a foreign Host with a foreign Origin; check both.
    allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
  });
  console.log(server.url());
  const stop = () =>
    void server
      .close()
      .then(() => runtime.tasks?.close())
      .then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
