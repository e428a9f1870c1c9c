// The example as a user runs it: dist/main.js --port N starts the authorization server on N+1 and
// the protected demo on N, and prints the URL and a client-credentials client, one line each.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect } from '@snodo/client';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** A port N such that N and N+1 were both free a moment ago (the OS picks N). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const first = createServer();
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    const port = (first.address() as { port: number }).port;
    const second = createServer();
    const ok = await new Promise<boolean>((resolve) => {
      second.once('error', () => resolve(false));
      second.listen(port + 1, '127.0.0.1', () => resolve(true));
    });
    await Promise.all([first, second].map((server) => new Promise((resolve) => server.close(resolve))));
    if (ok && port < 65_534) return port;
  }
}

describe('examples/protected-server dist/main.js', () => {
  it('--port N: the authorization server on N+1, client_id=… and client_secret=… lines, tools behind OAuth', async () => {
    const port = await freePortPair();
    const child = spawn(process.execPath, [MAIN, '--port', String(port)], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const url = (await lines.next()).value as string;
      expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
      const clientId = /^client_id=(.+)$/.exec((await lines.next()).value as string)?.[1];
      const clientSecret = /^client_secret=(.+)$/.exec((await lines.next()).value as string)?.[1];
      expect(clientId).toBeDefined();
      expect(clientSecret).toBeDefined();

      const metadata = await (
        await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)
      ).json();
      expect(metadata.authorization_servers).toEqual([`http://127.0.0.1:${port + 1}`]);
      const anonymous = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(anonymous.status).toBe(401);

      const client = await connect(
        { http: url },
        {
          oauth: {
            clientCredentials: { clientId: clientId as string, clientSecret: clientSecret as string },
          },
        },
      );
      try {
        expect((await client.callTool('add', { a: 2, b: 40 })).content).toEqual([
          { type: 'text', text: '42' },
        ]);
        const who = (await client.callTool('whoami', {})).structuredContent as {
          principal: string;
          scopes: string[];
        };
        expect(who.principal).toBe(clientId);
        // The challenge asked for mcp:tools; reset_counters needs mcp:admin too: 403, then a step-up.
        expect(who.scopes).toEqual(['mcp:tools']);
        const reset = await client.callTool('reset_counters', {});
        expect(reset.content).toEqual([{ type: 'text', text: 'reset 2 calls' }]);
      } finally {
        await client.close();
      }
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect((await exited)[0]).toBe(0);
    }
  });

  it('refuses a missing port with exit code 2 and the usage', async () => {
    const child = spawn(process.execPath, [MAIN], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stderr).toContain('usage: main.js --port N | --stdio');
  });
});
