// Snodo's Fastify plugin (@snodo/fastify) serving the demo server in a plain Fastify 5 application
// (Fastify's defaults: no logger), `app.register(snodo, { runtime, path: '/mcp' })`.
import process from 'node:process';
import { HOST, importOrUnavailable, ready } from './common.mjs';

const { default: Fastify } = await importOrUnavailable('fastify');
const { snodo } = await importOrUnavailable('@snodo/fastify');
const { createEverythingServer } = await importOrUnavailable('everything/server');

const app = Fastify();
await app.register(snodo, { runtime: createEverythingServer(), path: '/mcp' });
await app.listen({ host: HOST, port: 0 });
ready(`http://${HOST}:${app.server.address().port}/mcp`);
const stop = async () => {
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
