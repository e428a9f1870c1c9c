#!/usr/bin/env node
// The example application: node dist/main.js --port N [--host H]
// Serves /health, the JSON API under /api and MCP (the demo server) at /api/mcp. The bearer token
// is MCP_TOKEN from the environment, or a random one printed at start.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createEverythingServer } from 'everything/server';
import { buildApp } from './app.js';

const USAGE = 'usage: main.js --port N [--host H]';

const { values } = parseArgs({
  options: { port: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } },
  strict: true,
});
const port = Number(values.port);
if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be an integer from 0 to 65535\n${USAGE}`);
  process.exit(2);
}

const token = process.env.MCP_TOKEN ?? randomBytes(24).toString('base64url');
const app = await buildApp({
  runtime: createEverythingServer(),
  tokens: new Map([[token, { principal: 'demo-user', instance: 'demo-client' }]]),
  fastify: { logger: { level: process.env.LOG_LEVEL ?? 'info', stream: process.stderr } },
});
const address = await app.listen({ host: values.host, port });
console.log(`${address}/api/mcp`);
if (process.env.MCP_TOKEN === undefined) console.log(`Authorization: Bearer ${token}`);

const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
