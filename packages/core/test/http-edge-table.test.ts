import { describe, expect, it } from 'vitest';
import { createFetchHandler, type FetchHandlerOptions } from '../src/index.js';
import {
  DISCOVER_BODY,
  HTTP_ENDPOINT,
  HTTPS_ENDPOINT,
  ORIGIN_ROWS,
  originOptions,
  REPEATED_FIELD_ROWS,
  rowFields,
} from './fixtures/edge-table.js';
import { httpServer } from './http-helpers.js';

// The fetch adapter's run of the edge table (the listener and the Fastify plugin run the same rows
// over real sockets). A fetch `Headers` joins repeated fields with ", ": that list is what core sees.

const runtime = httpServer();

async function send(url: string, fields: [string, string][], options: FetchHandlerOptions) {
  const headers = new Headers();
  for (const [name, value] of fields) headers.append(name, value);
  const response = await createFetchHandler(
    runtime,
    options,
  )(new Request(url, { method: 'POST', headers, body: DISCOVER_BODY }));
  return { status: response.status, body: await response.json() };
}

describe('the edge table on the fetch adapter', () => {
  it.each(ORIGIN_ROWS.map((row) => [row.name, row] as const))('Origin: %s', async (_name, row) => {
    const fields = rowFields(row.origin.map((value): [string, string] => ['origin', value]));
    const answer = await send(
      row.endpoint === 'https' ? HTTPS_ENDPOINT : HTTP_ENDPOINT,
      fields,
      originOptions(row),
    );
    expect(answer.status).toBe(row.status);
    if (row.status === 403) expect(answer.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it.each(REPEATED_FIELD_ROWS.map((row) => [row.name, row] as const))(
    'repeated field: %s',
    async (_name, row) => {
      const options = row.allowedHosts === undefined ? {} : { allowedHosts: row.allowedHosts };
      const answer = await send(HTTP_ENDPOINT, rowFields(row.fields, row.replaces), options);
      expect(answer.status).toBe(row.status);
      if (row.status === 400) {
        expect(answer.body).toMatchObject({ id: null, error: { code: -32600 } });
        expect(answer.body.error.message).toMatch(/Host|Content-Type|Content-Length/);
      }
    },
  );
});
