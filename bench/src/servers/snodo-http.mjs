// Snodo's native listener (@snodo/transport-http) serving the demo server (examples/everything),
// with the listener's defaults. `--max-subscriptions N` and `--max-connections N` raise the two
// bounds the subscriptions scenario needs above their defaults (256 streams, 1,024 connections).
// `--otel noop|memory` registers the OpenTelemetry SDK first (servers/otel.mjs).
import process from 'node:process';
import { importOrUnavailable, option, ready } from './common.mjs';
import { registerOtel } from './otel.mjs';

await registerOtel();

const { listen } = await importOrUnavailable('@snodo/transport-http');
const { createEverythingServer } = await importOrUnavailable('everything/server');

const options = { runtime: createEverythingServer(), port: 0, host: '127.0.0.1' };
const maxSubscriptions = option('max-subscriptions');
if (maxSubscriptions !== undefined) options.maxSubscriptions = Number(maxSubscriptions);
const maxConnections = option('max-connections');
if (maxConnections !== undefined) options.maxConnections = Number(maxConnections);

const server = await listen(options);
ready(server.url());
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
