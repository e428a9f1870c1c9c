// The fixture's command line as other tests and users run it: dist/main.js --port N and --stdio.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('examples/conformance-server dist/main.js', () => {
  it('--port 0 serves the fixture on 127.0.0.1/mcp, prints the URL, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [MAIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const url = (await lines.next()).value as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'test_simple_text',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'test_simple_text', arguments: {}, _meta: META },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { content: { type: string }[] } };
    expect(body.result.content[0]?.type).toBe('text');
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  });

  it('--stdio serves the fixture on stdin/stdout and ends at EOF', async () => {
    const child = spawn(process.execPath, [MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    child.stdin.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: META } })}\n`,
    );
    const reply = JSON.parse((await lines.next()).value as string) as {
      id: number;
      result: { tools: { name: string }[] };
    };
    expect(reply.id).toBe(7);
    expect(reply.result.tools.map((t) => t.name)).toContain('test_simple_text');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('refuses a bad or missing mode with exit code 2 and the usage', async () => {
    for (const args of [[], ['--port', 'x'], ['--stdio', '--port', '1']]) {
      const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const [code] = await once(child, 'exit');
      expect(code).toBe(2);
      expect(stderr).toContain('usage: main.js');
    }
  });
});
