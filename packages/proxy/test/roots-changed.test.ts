// A frontend's `notifications/roots/list_changed` reaches its principal's backend sessions, and
// only theirs; the roots/list those sessions send in reply is answered by that frontend (issue 17).
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuthenticator } from '../src/cli/tokens.js';
import { createProxy, type McpProxy } from '../src/index.js';
import { everythingStdio } from './helpers/servers.js';

const ROOTS_SERVER = join(import.meta.dirname, 'fixtures', 'roots-server.mjs');
const token = (user: string) => `${user}-token-0123456789`;

function joined(result: object): string {
  return (((result as { content?: unknown }).content ?? []) as { text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

/**
 * A user on the official 1.x client whose roots can change. `answered(n)` resolves once the
 * client has sent its n-th roots/list answer (the proxy has passed it on to the backend by then).
 */
async function user(url: string, name: string) {
  let folder = `file:///home/${name}/first`;
  let asked = 0;
  let sent = 0;
  const waiters: { n: number; resolve(): void }[] = [];
  const client = new V1Client(
    { name: `v1-${name}`, version: '1.0.0' },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked++;
    return { roots: [{ uri: folder, name: `${name}'s folder` }] };
  });
  const transport = new V1Transport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token(name)}` } },
  });
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage, options) => {
    await send(message, options);
    if ('result' in message && Array.isArray((message.result as { roots?: unknown }).roots)) {
      sent++;
      for (const waiter of waiters.filter((w) => w.n <= sent)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  await client.connect(transport);
  return {
    client,
    get asked() {
      return asked;
    },
    call: async (tool: string) => joined(await client.callTool({ name: tool, arguments: {} })),
    /** Moves the user's folder and says so. */
    async move(to: string) {
      folder = `file:///home/${name}/${to}`;
      await client.sendRootsListChanged();
    },
    answered(n: number): Promise<void> {
      if (sent >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

describe('a frontend says its roots changed', () => {
  let proxy: McpProxy;
  let server: McpHttpServer;
  const closing: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    proxy = await createProxy({
      backends: [
        { id: 'se', target: everythingStdio() },
        { id: 'rs', target: { stdio: { command: process.execPath, args: [ROOTS_SERVER] } } },
      ],
    });
    server = await listen({
      runtime: proxy.runtime(),
      port: 0,
      authenticate: bearerAuthenticator([token('alice'), token('bob')]),
    });
  });

  afterAll(async () => {
    for (const close of closing) await close().catch(() => {});
    await server?.close();
    await proxy?.close();
  });

  it("its principal's backend sessions list the roots again, from that frontend; another principal's hear nothing", async () => {
    const alice = await user(server.url(), 'alice');
    const bob = await user(server.url(), 'bob');
    closing.push(
      () => alice.client.close(),
      () => bob.client.close(),
    );
    // Each opens its sessions, which list its roots once (server-everything then watches for changes).
    expect(await alice.call('se.get-roots-list')).toContain('file:///home/alice/first');
    expect(JSON.parse(await alice.call('rs.roots'))).toEqual({
      roots: ['file:///home/alice/first'],
      changes: 0,
    });
    expect(await bob.call('se.get-roots-list')).toContain('file:///home/bob/first');
    expect(JSON.parse(await bob.call('rs.roots'))).toEqual({ roots: ['file:///home/bob/first'], changes: 0 });
    const [aliceAnswers, bobAsked] = [alice.asked, bob.asked];

    await alice.move('second');
    // Both of alice's sessions ask her again (outside any call of hers), and hold her new roots.
    await alice.answered(aliceAnswers + 2);
    expect(await alice.call('se.get-roots-list')).toContain('file:///home/alice/second');
    expect(JSON.parse(await alice.call('rs.roots'))).toEqual({
      roots: ['file:///home/alice/second'],
      changes: 1,
    });

    // Bob's sessions were not told: his roots and his count are as they were, and he was not asked.
    expect(JSON.parse(await bob.call('rs.roots'))).toEqual({ roots: ['file:///home/bob/first'], changes: 0 });
    expect(await bob.call('se.get-roots-list')).not.toContain('alice');
    expect(bob.asked).toBe(bobAsked);
  });
});
