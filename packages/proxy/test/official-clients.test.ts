// Issue 17 as it was measured: the official clients (@modelcontextprotocol/sdk 1.x and
// @modelcontextprotocol/client 2.x) as frontends of snodo-proxy's HTTP frontend, with a bearer
// token per user (the command's frontendTokens), in front of server-everything over stdio. Each
// user sees only its own roots, and each server-initiated request is answered by its own caller.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuthenticator } from '../src/cli/tokens.js';
import { createProxy, type McpProxy } from '../src/index.js';
import { everythingStdio } from './helpers/servers.js';

const USERS = ['alice', 'bob', 'carol', 'dave', 'erin'] as const;
type User = (typeof USERS)[number];
const token = (user: User) => `${user}-token-0123456789`;

/** The part of both clients the test uses. */
interface Peer {
  readonly user: User;
  callTool(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

const rootOf = (user: User) => `file:///home/${user}/private-project`;
const roots = (user: User) => ({ roots: [{ uri: rootOf(user), name: `${user}'s project` }] });
const sampled = (user: User) => ({
  model: `${user}-model`,
  role: 'assistant' as const,
  content: { type: 'text' as const, text: `answered by ${user}` },
});

function joined(result: object): string {
  return (((result as { content?: unknown }).content ?? []) as { text?: string }[])
    .map((block) => block.text ?? '')
    .join('\n');
}

describe('official SDK clients through the proxy, each its own principal', () => {
  let proxy: McpProxy;
  let server: McpHttpServer;
  const peers: Peer[] = [];

  beforeAll(async () => {
    proxy = await createProxy({ backends: [{ id: 'se', target: everythingStdio() }] });
    server = await listen({
      runtime: proxy.runtime(),
      port: 0,
      authenticate: bearerAuthenticator(USERS.map(token)),
    });
  });

  afterAll(async () => {
    for (const peer of peers) await peer.close().catch(() => {});
    await server?.close();
    await proxy?.close();
  });

  async function v1(user: User): Promise<Peer> {
    const client = new V1Client(
      { name: `v1-${user}`, version: '1.0.0' },
      { capabilities: { roots: {}, sampling: {} } },
    );
    client.setRequestHandler(ListRootsRequestSchema, async () => roots(user));
    client.setRequestHandler(CreateMessageRequestSchema, async () => sampled(user));
    await client.connect(
      new V1Transport(new URL(server.url()), {
        requestInit: { headers: { authorization: `Bearer ${token(user)}` } },
      }),
    );
    const peer: Peer = {
      user,
      callTool: async (name, args = {}) => joined(await client.callTool({ name, arguments: args })),
      close: () => client.close(),
    };
    peers.push(peer);
    return peer;
  }

  async function v2(user: User): Promise<Peer> {
    const client = new V2Client(
      { name: `v2-${user}`, version: '1.0.0' },
      { capabilities: { roots: {}, sampling: {} } },
    );
    client.setRequestHandler('roots/list', async () => roots(user));
    client.setRequestHandler('sampling/createMessage', async () => sampled(user));
    await client.connect(
      new V2Transport(new URL(server.url()), {
        requestInit: { headers: { authorization: `Bearer ${token(user)}` } },
      }),
    );
    const peer: Peer = {
      user,
      callTool: async (name, args = {}) => joined(await client.callTool({ name, arguments: args })),
      close: () => client.close(),
    };
    peers.push(peer);
    return peer;
  }

  /** Fails when `text` names any user but `user`. */
  function onlyOf(user: User, text: string): void {
    for (const other of USERS) if (other !== user) expect(text).not.toContain(other);
  }

  it("a 1.x client and a v2 client each get their own roots from get-roots-list, never the other's", async () => {
    const alice = await v1('alice');
    const bob = await v2('bob');
    const ofAlice = await alice.callTool('se.get-roots-list');
    expect(ofAlice).toContain(rootOf('alice'));
    const ofBob = await bob.callTool('se.get-roots-list');
    expect(ofBob).toContain(rootOf('bob'));
    onlyOf('bob', ofBob);
    // And alice's session keeps hers.
    const again = await alice.callTool('se.get-roots-list');
    expect(again).toContain(rootOf('alice'));
    onlyOf('alice', again);
  });

  it('three clients at once (1.x and two v2), interleaved: each server-initiated request is answered by its own caller', async () => {
    const callers = [await v1('carol'), await v2('dave'), await v2('erin')];
    // Each caller's calls run one after the other (one call in flight per principal, see the
    // README's limits over stdio); the three callers' calls interleave.
    const seen = await Promise.all(
      callers.map(async (peer) => [
        await peer.callTool('se.get-roots-list'),
        await peer.callTool('se.trigger-sampling-request', { prompt: `from ${peer.user}` }),
        await peer.callTool('se.trigger-sampling-request', { prompt: `again from ${peer.user}` }),
      ]),
    );
    callers.forEach((peer, i) => {
      const [ownRoots, first, second] = seen[i] as string[];
      expect(ownRoots).toContain(rootOf(peer.user));
      expect(first).toContain(`answered by ${peer.user}`);
      expect(second).toContain(`answered by ${peer.user}`);
      for (const text of [ownRoots, first, second]) onlyOf(peer.user, text as string);
    });
  });
});
