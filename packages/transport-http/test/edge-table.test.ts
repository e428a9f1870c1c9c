import { afterEach, describe, expect, it } from 'vitest';
import {
  DISCOVER_BODY,
  HTTPS_ENDPOINT,
  ORIGIN_ROWS,
  type OriginRow,
  originOptions,
  REPEATED_FIELD_ROWS,
  rowFields,
} from '../../core/test/fixtures/edge-table.js';
import type { ListenOptions } from '../src/index.js';
import { closeAll, raw, start } from './helpers.js';

// The listener's run of core's edge table (the fetch adapter and the Fastify plugin run the same
// rows), over a raw socket: repeated fields reach node's parser as they were sent.

afterEach(closeAll);

/** Sends one request with exactly these fields (and `connection: close`); the status and JSON body. */
async function send(port: number, fields: [string, string][]) {
  const client = await raw(port);
  const head = fields.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  client.socket.write(`POST /mcp HTTP/1.1\r\n${head}connection: close\r\n\r\n${DISCOVER_BODY}`);
  await client.closed;
  const [head0 = '', body = ''] = client.received().split('\r\n\r\n');
  const status = Number(head0.split(' ')[1]);
  return { status, body: body === '' ? undefined : JSON.parse(body) };
}

function listenerOptions(row: OriginRow): Partial<ListenOptions> {
  // Over HTTPS: the listener speaks plain HTTP, so a TLS-terminating proxy in front says so with publicUrl.
  return { ...originOptions(row), ...(row.endpoint === 'https' ? { publicUrl: HTTPS_ENDPOINT } : {}) };
}

describe('the edge table on the listener', () => {
  it.each(ORIGIN_ROWS.map((row) => [row.name, row] as const))('Origin: %s', async (_name, row) => {
    const server = await start(listenerOptions(row));
    const fields = rowFields([
      ['host', 'mcp.example.com'],
      ...row.origin.map((value): [string, string] => ['origin', value]),
    ]);
    const answer = await send(server.address().port, fields);
    expect(answer.status).toBe(row.status);
    if (row.status === 403) expect(answer.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it.each(REPEATED_FIELD_ROWS.map((row) => [row.name, row] as const))(
    'repeated field: %s',
    async (_name, row) => {
      const server = await start(row.allowedHosts === undefined ? {} : { allowedHosts: row.allowedHosts });
      const hasHost = row.fields.some(([name]) => name === 'host');
      const fields = rowFields(hasHost ? row.fields : [['host', 'localhost'], ...row.fields], row.replaces);
      const answer = await send(server.address().port, fields);
      expect(answer.status).toBe(row.status);
    },
  );
});
