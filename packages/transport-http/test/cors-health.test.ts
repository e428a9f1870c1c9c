// The listener's cors and health options: off by default; CORS independent of the Origin check.
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, modern, post, start } from './helpers.js';

afterEach(closeAll);

const PAGE = 'http://127.0.0.1:5173';

function preflight(url: string, origin: string, headers = 'content-type, mcp-protocol-version, mcp-method') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });
}

describe('cors', () => {
  it('is off by default: a preflight gets 405 without Access-Control headers', async () => {
    const server = await start();
    const response = await preflight(server.url(), PAGE);
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const answered = await post(server.url(), modern('tools/list'), { origin: PAGE });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the preflight of an allowed origin: 204, methods, the requested headers, max age', async () => {
    const server = await start({ cors: { origins: [PAGE], maxAge: 60 } });
    const response = await preflight(server.url(), PAGE, 'Content-Type, Authorization, Mcp-Param-Region');
    expect(response.status).toBe(204);
    const names = ['allow-origin', 'allow-methods', 'allow-headers', 'max-age'];
    expect(names.map((name) => response.headers.get(`access-control-${name}`))).toEqual([
      PAGE,
      'POST, GET, DELETE',
      'content-type, authorization, mcp-param-region',
      '60',
    ]);
    expect(response.headers.get('vary')).toContain('origin');
  });

  it('refuses the preflight of another origin: 403 without Access-Control headers', async () => {
    const server = await start({ cors: { origins: [PAGE] } });
    const response = await preflight(server.url(), 'http://127.0.0.1:5174');
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a preflight asking for more than 64 headers, not one asking for 64', async () => {
    const server = await start({ cors: { origins: [PAGE] } });
    const names = (count: number) => Array.from({ length: count }, (_, i) => `x-h${i}`).join(', ');
    expect((await preflight(server.url(), PAGE, names(64))).status).toBe(204);
    expect((await preflight(server.url(), PAGE, names(65))).status).toBe(403);
  });

  it('adds Allow-Origin and exposes the MCP headers on responses, errors included', async () => {
    const server = await start({ cors: { origins: (origin: string) => origin === PAGE } });
    const ok = await post(server.url(), modern('tools/list'), { origin: PAGE });
    expect(ok.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(ok.headers.get('access-control-expose-headers')).toBe(
      'mcp-session-id, mcp-protocol-version, www-authenticate',
    );
    const bad = await post(server.url(), modern('tools/list'), { origin: PAGE, 'mcp-method': 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(PAGE);
  });

  it('leaves the Origin check on: an origin CORS allows but allowedOriginHosts does not is 403', async () => {
    const server = await start({ cors: { origins: ['*'] } });
    const response = await post(server.url(), modern('tools/list'), { origin: 'http://evil.example' });
    expect(response.status).toBe(403);
    expect((await response.json()).error.message).toBe('Forbidden: Origin is not allowed');
  });

  it.each([
    [{ origins: ['app.example.com'] }, 'cors.origins entries must be "*" or an origin'],
    [{ origins: ['*'], credentials: true }, 'cors.origins "*" cannot be combined with cors.credentials'],
    [{ origins: [PAGE], maxAge: -1 }, 'cors.maxAge must be a non-negative integer'],
  ])('refuses bad options at start: %j', async (cors, message) => {
    await expect(start({ cors: cors as never })).rejects.toThrow(message);
  });
});

describe('health', () => {
  it('is off by default: GET /healthz is 404', async () => {
    const server = await start();
    expect((await fetch(server.url().replace('/mcp', '/healthz'))).status).toBe(404);
  });

  it('GET /healthz answers 200 with the executor stats', async () => {
    const server = await start({ health: true });
    await post(server.url(), modern('tools/call', { name: 'echo', arguments: { text: 'x' } }));
    const response = await fetch(server.url().replace('/mcp', '/healthz'));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body.status).toBe('ok');
    expect(body.executor).toMatchObject({ running: 0, queued: 0, completed: 1 });
  });

  it('serves at health.path with the details it reports; a details that throws makes it 503', async () => {
    let healthy = true;
    const server = await start({
      health: {
        path: '/status',
        details: () => {
          if (!healthy) throw new Error('database unreachable');
          return { database: 'up' };
        },
      },
    });
    const url = server.url().replace('/mcp', '/status');
    expect(await (await fetch(url)).json()).toMatchObject({ status: 'ok', database: 'up' });
    healthy = false;
    const down = await fetch(url);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'unavailable', error: 'database unreachable' });
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
  });
});
