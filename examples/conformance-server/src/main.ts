#!/usr/bin/env node
// Serves the conformance fixture on http://127.0.0.1:<port>/mcp (port 0: a free one) and prints the URL.
import { listen } from '@snodo/transport-http';
import { createConformanceServer } from './server.js';

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
const server = await listen({
  runtime: createConformanceServer(),
  port,
  // dns-rebinding-protection sends a foreign Host with a foreign Origin; check both.
  allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
});
console.log(server.url());
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
