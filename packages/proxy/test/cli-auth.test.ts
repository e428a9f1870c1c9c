// snodo-proxy's HTTP frontend as an OAuth 2.1 resource server (the config's `auth`, against a real
// authorization server on loopback), with CORS and the health route reporting every backend.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@snodo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  clientCredentialsClient,
  startAuthorizationServer,
} from '../../../examples/protected-server/src/authorization-server.js';
import { DEMO_MAIN, waitForOutput } from './helpers/servers.js';

const BIN = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const SERVICE = { client_id: 'service', client_secret: 'service-secret-0123456789' };

let as: AuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer({
    port: 0,
    clients: [clientCredentialsClient(SERVICE.client_id, SERVICE.client_secret, 'mcp:tools')],
  });
});
afterAll(() => as?.close());

describe('snodo-proxy with auth, corsOrigins and health', () => {
  it('challenges without a token, serves the metadata, lets a client-credentials client in, and reports backend health', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snodo-proxy-auth-'));
    const path = join(dir, 'proxy.json');
    writeFileSync(
      path,
      JSON.stringify({
        listen: { port: 0 },
        backends: [
          { id: 'demo', target: { stdio: { command: process.execPath, args: [DEMO_MAIN, '--stdio'] } } },
        ],
        auth: { authorizationServers: [as.issuer], requiredScopes: ['mcp:tools'] },
        corsOrigins: ['http://127.0.0.1:5173'],
        health: true,
      }),
    );
    const child = spawn(process.execPath, [BIN, '--config', path], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const [, url = ''] = await waitForOutput(
        child,
        'stderr',
        /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
      );
      const origin = new URL(url).origin;
      const metadata = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(metadata).toMatchObject({ resource: url, authorization_servers: [as.issuer] });

      const refused = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:5173' },
        body: '{}',
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer scope="mcp:tools", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(refused.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:5173');

      const client = await connect(
        { http: url },
        {
          oauth: { clientCredentials: { clientId: SERVICE.client_id, clientSecret: SERVICE.client_secret } },
        },
      );
      expect(await client.callTool('demo.echo', { text: 'through OAuth' })).toMatchObject({
        content: [{ type: 'text', text: 'through OAuth' }],
      });
      await client.close();

      const health = await fetch(`${origin}/healthz`);
      expect(health.status).toBe(200);
      const body = await health.json();
      expect(body.proxy.status).toBe('up');
      expect(body.proxy.backends.map((backend: { id: string }) => backend.id)).toEqual(['demo']);
      expect(body.executor.completed).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    }
  });

  it('an auth issuer without metadata stops the command at start: exit code 2 and the reason on stderr', async () => {
    // An "authorization server" that answers 404 to every metadata URL.
    const empty = createServer((_request, response) => response.writeHead(404).end());
    empty.listen(0, '127.0.0.1');
    await once(empty, 'listening');
    const issuer = `http://127.0.0.1:${(empty.address() as AddressInfo).port}`;
    try {
      const dir = mkdtempSync(join(tmpdir(), 'snodo-proxy-auth-'));
      const path = join(dir, 'proxy.json');
      writeFileSync(
        path,
        JSON.stringify({ listen: { port: 0 }, backends: [], auth: { authorizationServers: [issuer] } }),
      );
      const child = spawn(process.execPath, [BIN, '--config', path], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const [code] = await once(child, 'exit');
      expect(code).toBe(2);
      expect(stderr).toContain(`authorization server ${issuer} has no usable metadata`);
    } finally {
      empty.close();
    }
  });

  it('refuses auth together with frontendTokens', async () => {
    const { parseConfig } = await import('../src/cli/config.js');
    const parsed = parseConfig({
      auth: { authorizationServers: [as.issuer] },
      frontendTokens: ['x'.repeat(16)],
    });
    expect(parsed).toEqual({ problems: ['auth: auth and frontendTokens exclude each other'] });
  });
});
