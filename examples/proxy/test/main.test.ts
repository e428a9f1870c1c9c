// The example as a user runs it: dist/main.js starts the demo server over HTTP, then snodo-proxy with
// proxy.json (which spawns the demo server over stdio), and serves both backends' tools.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect } from '@snodo/client';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('examples/proxy dist/main.js', () => {
  it('--port 0 prints the proxy URL and serves local.* (stdio backend) and w.* (HTTP backend); SIGTERM stops it', async () => {
    const child = spawn(process.execPath, [MAIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const url = (await lines.next()).value as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect({ http: url });
    try {
      const names = (await client.allTools()).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['local.echo', 'w.echo']));
      for (const name of ['local.echo', 'w.echo']) {
        const result = await client.callTool(name, { text: `via ${name}` });
        expect(result.content).toEqual([{ type: 'text', text: `via ${name}` }]);
      }
    } finally {
      await client.close();
    }
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
  });

  it('--stdio serves the proxy on stdin/stdout and ends when its input ends', async () => {
    const child = spawn(process.execPath, [MAIN, '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'w.echo', arguments: { text: 'hi' }, _meta: meta } })}\n`,
    );
    const reply = JSON.parse((await lines.next()).value as string) as { id: number; result: unknown };
    expect(reply).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'hi' }] } });
    const exited = once(child, 'exit');
    child.stdin.end();
    expect((await exited)[0]).toBe(0);
  });

  it('refuses a missing or doubled mode with exit code 2 and the usage', async () => {
    for (const args of [[], ['--stdio', '--check'], ['--port', 'x']]) {
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
