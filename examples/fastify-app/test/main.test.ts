// The example as a user runs it: the built dist/main.js with --port, the demo server behind the
// application's bearer-token hook at /api/mcp, the health route and JSON API beside it.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const MODERN = '2026-07-28';

let child: ChildProcess;
let url: string;
let token: string;

beforeAll(async () => {
  child = spawn(process.execPath, [MAIN, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  url = (await lines.next()).value as string;
  token = ((await lines.next()).value as string).replace(/^Authorization: Bearer /, '');
});

afterAll(async () => {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

function call(name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe('examples/fastify-app', () => {
  it('prints its MCP URL and a token, on 127.0.0.1 and the port asked for', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('keeps its health route and JSON API', async () => {
    const origin = new URL(url).origin;
    expect(await (await fetch(`${origin}/health`)).json()).toEqual({ status: 'ok' });
    const saved = await fetch(`${origin}/api/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(saved.status).toBe(201);
    expect(await saved.json()).toEqual({ saved: 'hello' });
    const invalid = await fetch(`${origin}/api/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'no text' }),
    });
    expect(invalid.status).toBe(400);
  });

  it('serves the demo server to a caller with the token, and refuses the others', async () => {
    const served = await call('echo', { text: 'from fastify' }, { authorization: `Bearer ${token}` });
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ id: 1, result: { content: [{ text: 'from fastify' }] } });
    const anonymous = await call('echo', { text: 'x' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await call('echo', { text: 'x' }, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(403);
  });
});
