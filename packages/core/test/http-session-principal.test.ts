import { describe, expect, it } from 'vitest';
import { resolveHttpOptions } from '../src/index.js';
import { handle, httpRequest, httpServer, LEGACY_HEADERS, read } from './http-helpers.js';

const runtime = httpServer();
let nextId = 1;

/** One POST as `principal` (what the host verified), or anonymous. */
async function postAs(
  options: ReturnType<typeof resolveHttpOptions>,
  principal: string | undefined,
  body: unknown,
  headers: Record<string, string>,
) {
  const request = httpRequest({ headers, body: JSON.stringify(body) });
  const authed = principal === undefined ? request : { ...request, auth: { principal } };
  return read(await handle(runtime, authed, options));
}

describe.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
  'an initialize-based session is bound to the principal that created it (%s)',
  (version) => {
    const initialize = () => ({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'p', version: '0' } },
    });
    const list = () => ({ jsonrpc: '2.0', id: nextId++, method: 'tools/list' });

    async function openAs(options: ReturnType<typeof resolveHttpOptions>, principal: string | undefined) {
      const answer = await postAs(options, principal, initialize(), LEGACY_HEADERS);
      expect(answer.status).toBe(200);
      const headers: Record<string, string> = {
        ...LEGACY_HEADERS,
        'mcp-session-id': answer.headers['mcp-session-id'] as string,
      };
      if (version !== '2025-03-26') headers['mcp-protocol-version'] = version;
      return headers;
    }

    it('another principal presenting the session id gets 404, as if it did not exist; its creator is served', async () => {
      const options = resolveHttpOptions({});
      const headers = await openAs(options, 'alice');
      const stolen = await postAs(options, 'mallory', list(), headers);
      expect(stolen.status).toBe(404);
      expect(stolen.body.error.message).toMatch(/Session not found/);
      const anonymous = await postAs(options, undefined, list(), headers);
      expect(anonymous.status).toBe(404);
      const own = await postAs(options, 'alice', list(), headers);
      expect(own.status).toBe(200);
      expect(own.body.result.tools).toBeInstanceOf(Array);
    });

    it('DELETE and the GET stream follow the same rule', async () => {
      const options = resolveHttpOptions({});
      const headers = await openAs(options, 'alice');
      const del = (principal: string) =>
        handle(runtime, { ...httpRequest({ method: 'DELETE', headers }), auth: { principal } }, options);
      expect((await del('mallory')).status).toBe(404);
      const get = await handle(
        runtime,
        {
          ...httpRequest({ method: 'GET', headers: { ...headers, accept: 'text/event-stream' } }),
          auth: { principal: 'mallory' },
        },
        options,
      );
      expect(get.status).toBe(404);
      expect((await del('alice')).status).toBe(204);
    });

    it('a session opened without authentication stays usable without it', async () => {
      const options = resolveHttpOptions({});
      const headers = await openAs(options, undefined);
      expect((await postAs(options, undefined, list(), headers)).status).toBe(200);
    });
  },
);
