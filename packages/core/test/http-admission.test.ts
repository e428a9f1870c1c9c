import { describe, expect, it } from 'vitest';
import { hostAllowed, originAllowed, parseHostRules } from '../src/http/origin.js';
import { resolveHttpOptions } from '../src/index.js';
import {
  handle,
  httpRequest,
  httpServer,
  LEGACY_HEADERS,
  modernHeaders,
  modernMessage,
  post,
  postModern,
  read,
} from './http-helpers.js';

const runtime = httpServer();
const discover = () => modernMessage('server/discover');

describe('HTTP admission: path, Host, Origin, method', () => {
  it('serves only the configured path: elsewhere 404', async () => {
    const options = { path: '/mcp' };
    const message = discover();
    const elsewhere = httpRequest({
      path: '/other',
      headers: modernHeaders(message),
      body: JSON.stringify(message),
    });
    const answer = await read(await handle(runtime, elsewhere, options));
    expect(answer.status).toBe(404);
    const withQuery = httpRequest({
      path: '/mcp?x=1',
      headers: modernHeaders(message),
      body: JSON.stringify(message),
    });
    expect((await read(await handle(runtime, withQuery, options))).status).toBe(200);
  });

  it('accepts a request without Origin', async () => {
    expect((await postModern(runtime, discover())).status).toBe(200);
  });

  it.each([
    'http://localhost',
    'http://localhost:3000',
    'http://127.0.0.1:8080',
    'http://[::1]:9',
    'https://LOCALHOST',
  ])('accepts the loopback Origin %s by default', async (origin) => {
    expect((await postModern(runtime, discover(), undefined, { origin })).status).toBe(200);
  });

  it.each([
    'http://evil.example.com',
    'http://localhost.evil.example.com',
    'http://user@localhost',
    'http://user:pw@127.0.0.1',
    'null',
    'not a url',
  ])('refuses the Origin %s with 403 and an id-less JSON-RPC error', async (origin) => {
    const answer = await postModern(runtime, discover(), undefined, { origin });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('allowedOriginHosts replaces the loopback names; an entry with a port pins it', async () => {
    const options = { allowedOriginHosts: ['app.example.com', 'localhost:3000'] };
    const status = async (origin: string) =>
      (await postModern(runtime, discover(), options, { origin })).status;
    expect(await status('https://app.example.com')).toBe(200);
    expect(await status('https://app.example.com:8443')).toBe(200);
    expect(await status('http://localhost:3000')).toBe(200);
    expect(await status('http://localhost:3001')).toBe(403);
    expect(await status('http://127.0.0.1')).toBe(403);
  });

  it('an entry with a port compares the default port of the scheme when the Origin has none', () => {
    const policy = {
      originRules: parseHostRules('allowedOriginHosts', ['example.com:443']),
      allowedOrigins: undefined,
    };
    expect(originAllowed('https://example.com', policy, undefined)).toBe(true);
    expect(originAllowed('http://example.com', policy, undefined)).toBe(false);
  });

  it('checks Host only when allowedHosts is set', async () => {
    const host = { host: 'evil.example.com' };
    expect((await postModern(runtime, discover(), undefined, host)).status).toBe(200);
    const options = { allowedHosts: ['localhost', '127.0.0.1:4000'] };
    expect((await postModern(runtime, discover(), options, host)).status).toBe(403);
    expect((await postModern(runtime, discover(), options, { host: 'localhost:1234' })).status).toBe(200);
    expect((await postModern(runtime, discover(), options, { host: '127.0.0.1:4000' })).status).toBe(200);
    expect((await postModern(runtime, discover(), options, { host: '127.0.0.1:4001' })).status).toBe(403);
    expect(hostAllowed(undefined, parseHostRules('allowedHosts', ['localhost']))).toBe(false);
  });

  it.each([
    ['a path', 'https://app.example.com/app'],
    ['no scheme', 'app.example.com'],
    ['userinfo', 'https://user@app.example.com'],
    ['a query', 'https://app.example.com?x=1'],
    ['the opaque origin', 'null'],
    ['a wildcard', '*'],
    ['not a string', 42],
  ])('refuses an allowedOrigins entry with %s, naming the option', (_what, entry) => {
    expect(() => resolveHttpOptions({ allowedOrigins: [entry as string] })).toThrow(/allowedOrigins entries/);
  });

  it('refuses allowedOrigins that is neither a list nor a function', () => {
    expect(() => resolveHttpOptions({ allowedOrigins: 'https://app.example.com' as never })).toThrow(
      /allowedOrigins must be an array of origins or a function/,
    );
  });

  it('an allowedOrigins predicate sees the Origin value as sent, opaque origins included', async () => {
    const seen: string[] = [];
    const options = {
      allowedOrigins: (origin: string) => {
        seen.push(origin);
        return origin === 'null';
      },
    };
    expect((await postModern(runtime, discover(), options, { origin: 'null' })).status).toBe(200);
    expect((await postModern(runtime, discover(), options, { origin: ' https://x.example ' })).status).toBe(
      403,
    );
    // A loopback Origin is allowed by allowedOriginHosts before the predicate is asked.
    expect((await postModern(runtime, discover(), options, { origin: 'http://localhost' })).status).toBe(200);
    expect(seen).toEqual(['null', 'https://x.example']);
  });

  it('refuses a single field the rawHeaders list repeats, in any case, though headers kept one', async () => {
    const message = discover();
    const send = (rawHeaders: string[]) =>
      handle(runtime, {
        ...httpRequest({
          headers: { ...modernHeaders(message), host: 'localhost' },
          body: JSON.stringify(message),
        }),
        rawHeaders,
      }).then(read);
    const twice = await send([
      'Host',
      'localhost',
      'Content-Type',
      'application/json',
      'HOST',
      'evil.example',
    ]);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({
      id: null,
      error: { code: -32600, message: 'Bad Request: more than one Host value' },
    });
    // Other fields may repeat (Accept is a list).
    const lists = await send([
      'Host',
      'localhost',
      'Accept',
      'application/json',
      'Accept',
      'text/event-stream',
    ]);
    expect(lists.status).toBe(200);
  });

  it('refuses bad host rules when the options are resolved, naming the option', () => {
    expect(() => resolveHttpOptions({ allowedOriginHosts: ['http://x'] })).toThrow(/allowedOriginHosts/);
    expect(() => resolveHttpOptions({ allowedHosts: ['a:b:c'] })).toThrow(/allowedHosts/);
    expect(() => resolveHttpOptions({ allowedOriginHosts: 'localhost' as never })).toThrow(
      /allowedOriginHosts/,
    );
  });

  it.each(['GET', 'PUT', 'PATCH', 'OPTIONS'])('answers %s with 405 and Allow', async (method) => {
    const answer = await read(await handle(runtime, httpRequest({ method, headers: LEGACY_HEADERS })));
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST, GET, DELETE');
  });

  it('answers DELETE without a session with 405 (2026-07-28 has no sessions)', async () => {
    const answer = await read(await handle(runtime, httpRequest({ method: 'DELETE' })));
    expect(answer.status).toBe(405);
  });

  it('a modern-only server allows only POST', async () => {
    const modernOnly = httpServer(undefined, { protocolVersions: ['2026-07-28'] });
    const answer = await read(await handle(modernOnly, httpRequest({ method: 'GET' })));
    expect(answer.headers.allow).toBe('POST');
  });
});

describe('HTTP admission: media types, size, decoding', () => {
  it('refuses a Content-Type other than application/json with 415', async () => {
    const message = discover();
    const answer = await post(runtime, message, { ...modernHeaders(message), 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toBe(-32600);
  });

  it('accepts application/json with parameters, any case', async () => {
    const message = discover();
    const answer = await post(runtime, message, {
      ...modernHeaders(message),
      'content-type': 'Application/JSON; charset=utf-8',
    });
    expect(answer.status).toBe(200);
  });

  it.each([undefined, 'application/json', 'text/event-stream', 'application/json, text/event-stream;q=0'])(
    'refuses Accept %s (both types are required) with 406',
    async (accept) => {
      const message = discover();
      const answer = await post(runtime, message, { ...modernHeaders(message), accept });
      expect(answer.status).toBe(406);
      expect(answer.body.error.code).toBe(-32600);
    },
  );

  it.each(['*/*', 'text/event-stream, application/json', 'application/*, text/*'])(
    'accepts Accept %s',
    async (accept) => {
      const message = discover();
      expect((await post(runtime, message, { ...modernHeaders(message), accept })).status).toBe(200);
    },
  );

  it('reads each Accept value as sent: an answer for one value is not reused for the next', async () => {
    const message = discover();
    const statuses = [];
    for (const accept of ['application/json, text/event-stream', 'application/json', '*/*', 'text/*']) {
      statuses.push((await post(runtime, message, { ...modernHeaders(message), accept })).status);
    }
    expect(statuses).toEqual([200, 406, 200, 406]);
  });

  it('refuses a body over maxBodyBytes with 413; exactly maxBodyBytes passes', async () => {
    const message = discover();
    const text = JSON.stringify(message);
    const options = { maxBodyBytes: text.length + 10 };
    expect((await post(runtime, text.padEnd(text.length + 10), modernHeaders(message), options)).status).toBe(
      200,
    );
    const over = await post(runtime, text.padEnd(text.length + 11), modernHeaders(message), options);
    expect(over.status).toBe(413);
  });

  it('answers a body that is not JSON with 400 and -32700', async () => {
    const answer = await post(runtime, '{"jsonrpc":', modernHeaders(discover()));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it('answers an invalid JSON-RPC message with 400 and -32600, echoing its id', async () => {
    const answer = await post(runtime, { jsonrpc: '1.0', id: 7, method: 'x' }, modernHeaders(discover()));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ id: 7, error: { code: -32600 } });
  });
});
