#!/usr/bin/env node
// The protected demo:
//   node dist/main.js --port N     an OAuth 2.1 authorization server (oidc-provider) on
//                                  http://127.0.0.1:N+1 and the demo tools behind it on
//                                  http://127.0.0.1:N/mcp; prints the URL, then a client registered
//                                  for the client-credentials grant as `client_id=…` and
//                                  `client_secret=…`, one per line
//   node dist/main.js --stdio      the same tools on stdio, without authorization (MCP leaves stdio
//                                  credentials to the environment)
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { listen } from '@snodo/transport-http';
import { serve } from '@snodo/transport-stdio';
import { clientCredentialsClient, startAuthorizationServer } from './authorization-server.js';
import { createProtectedServer, DEMO_SCOPES } from './server.js';

const USAGE = 'usage: main.js --port N | --stdio';

const { values } = parseArgs({
  options: { port: { type: 'string' }, stdio: { type: 'boolean', default: false } },
  strict: true,
});

async function main(): Promise<void> {
  const runtime = createProtectedServer();
  if (values.stdio) {
    console.log = console.info = console.debug = console.error;
    await serve(runtime);
    return;
  }
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 1 || port > 65_534) {
    console.error(`--port must be an integer from 1 to 65534\n${USAGE}`);
    process.exit(2);
  }
  const client = {
    client_id: `demo-${randomBytes(4).toString('hex')}`,
    client_secret: randomBytes(24).toString('base64url'),
  };
  const authorizationServer = await startAuthorizationServer({
    port: port + 1,
    scopes: DEMO_SCOPES,
    clients: [clientCredentialsClient(client.client_id, client.client_secret, DEMO_SCOPES.join(' '))],
  });
  const server = await listen({
    runtime,
    port,
    auth: { authorizationServers: [authorizationServer.issuer], requiredScopes: ['mcp:tools'] },
    health: true,
  });
  console.log(server.url());
  console.log(`client_id=${client.client_id}`);
  console.log(`client_secret=${client.client_secret}`);
  const stop = async () => {
    await server.close();
    await authorizationServer.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(`protected-server: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
