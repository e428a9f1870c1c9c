import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';

const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
const snippet = /## Added to an existing app\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
const module = fileURLToPath(new URL('./.readme-snippet.ts', import.meta.url));

afterAll(() => rmSync(module, { force: true }));

describe('README', () => {
  it('adds the plugin to an existing app, with its auth hook, in under 20 lines', () => {
    expect(snippet).toContain("scope.register(snodo, { runtime, path: '/mcp' })");
    expect(snippet).toContain('request.mcpAuth = { principal: user.id }');
    expect(snippet.trimEnd().split('\n').length).toBeLessThan(20);
  });

  it('runs as written (with a verifyToken and port 0 on loopback)', async () => {
    const source = snippet
      .replace('await app.listen({ port: 3000 });', "await app.listen({ host: '127.0.0.1', port: 0 });")
      .concat(
        '\nasync function verifyToken(header: string | undefined) {',
        "\n  return header === 'Bearer t' ? { id: 'alice' } : undefined;\n}",
        '\nexport { app };\n',
      );
    expect(source).toContain('port: 0');
    writeFileSync(module, source);
    const { app } = (await import(module)) as { app: FastifyInstance };
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'whoami',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      });
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'whoami',
      };
      const served = await app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...headers, authorization: 'Bearer t' },
        payload: body,
      });
      expect(served.json().result.content[0].text).toBe('alice');
      const refused = await app.inject({ method: 'POST', url: '/api/mcp', headers, payload: body });
      expect(refused.statusCode).toBe(401);
      expect((await app.inject({ url: '/health' })).json()).toEqual({ ok: true });
    } finally {
      await app.close();
    }
  });
});
