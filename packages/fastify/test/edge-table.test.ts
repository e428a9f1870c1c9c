import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DISCOVER_BODY,
  ORIGIN_ROWS,
  originOptions,
  REPEATED_FIELD_ROWS,
  rowFields,
} from '../../core/test/fixtures/edge-table.js';
import { type SnodoFastifyOptions, snodo } from '../src/index.js';
import { rawExchange, testServer } from './helpers.js';

// The Fastify plugin's run of core's edge table (the fetch adapter and the listener run the same
// rows), over a raw socket: repeated fields reach node's parser as they were sent.

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function serve(options: Omit<SnodoFastifyOptions, 'runtime'>, trustProxy = false): Promise<number> {
  const app = Fastify({ trustProxy });
  apps.push(app);
  await app.register(snodo, { runtime: testServer(), ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** Sends one request with exactly these fields (and `connection: close`); the status and body text. */
async function send(port: number, fields: [string, string][]) {
  const head = fields.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const text = await rawExchange(
    port,
    `POST /mcp HTTP/1.1\r\n${head}connection: close\r\n\r\n`,
    DISCOVER_BODY,
  ).response;
  const [statusLine = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(statusLine.split(' ')[1]), body };
}

describe('the edge table on the Fastify plugin', () => {
  it.each(ORIGIN_ROWS.map((row) => [row.name, row] as const))('Origin: %s', async (_name, row) => {
    // Over HTTPS: a TLS-terminating proxy says so with X-Forwarded-Proto, which Fastify's
    // trustProxy turns into request.protocol.
    const https = row.endpoint === 'https';
    const port = await serve(originOptions(row), https);
    const fields = rowFields([
      ['host', 'mcp.example.com'],
      ...(https ? [['x-forwarded-proto', 'https'] as [string, string]] : []),
      ...row.origin.map((value): [string, string] => ['origin', value]),
    ]);
    const answer = await send(port, fields);
    expect(answer.status).toBe(row.status);
    if (row.status === 403)
      expect(JSON.parse(answer.body)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it.each(REPEATED_FIELD_ROWS.map((row) => [row.name, row] as const))(
    'repeated field: %s',
    async (_name, row) => {
      const port = await serve(row.allowedHosts === undefined ? {} : { allowedHosts: row.allowedHosts });
      const hasHost = row.fields.some(([name]) => name === 'host');
      const fields = rowFields(hasHost ? row.fields : [['host', 'localhost'], ...row.fields], row.replaces);
      const answer = await send(port, fields);
      expect(answer.status).toBe(row.status);
    },
  );
});
