// A backend that keeps sessions gets one session per frontend principal: one caller never sees
// another caller's roots, session-created resources, subscriptions or input answers (issue 17).
import { type Client, type ConnectOptions, connect, type Target } from '@snodo/client';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuthenticator } from '../src/cli/tokens.js';
import { createProxy, type McpProxy } from '../src/index.js';
import { flakyServer, frontend, reader, rpcError } from './helpers/proxy.js';
import { DEMO_MAIN, everythingStdio, type Started, startEverythingHttp } from './helpers/servers.js';

const TOKENS = ['alice-token-0123456789', 'bob-token-0123456789'];
const NOTES = 'demo://resource/session/alice-notes';

/** The text of a tool result's content, joined. */
function text(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? JSON.stringify(block)).join('\n');
}

/** A frontend with its own roots and its own elicitation answer. */
function person(name: string): ConnectOptions {
  return {
    onRoots: async () => ({
      roots: [{ uri: `file:///home/${name}/private-project`, name: `${name}'s project` }],
    }),
    onElicit: async () => ({
      action: 'accept',
      content: { name, check: true, integer: 1, email: `${name}@example.com` },
    }),
  };
}

describe('a backend session per frontend principal', () => {
  let proxy: McpProxy;
  let everythingHttp: Started;
  let authenticated: McpHttpServer;
  let anonymous: McpHttpServer;
  const clients: Client[] = [];

  const demoLegacy = (): Target => ({ stdio: { command: process.execPath, args: [DEMO_MAIN, '--stdio'] } });

  beforeAll(async () => {
    everythingHttp = await startEverythingHttp();
    proxy = await createProxy({
      backends: [
        { id: 'se', target: everythingStdio() },
        { id: 'seh', target: { http: everythingHttp.url } },
        // The demo server spoken to on an initialize-based revision: it keeps a session too.
        { id: 'old', target: demoLegacy(), clientOptions: { protocolVersions: ['2025-11-25'] } },
        // Its `grow` adds a tool in its own process and says so (tools list_changed); spoken to on
        // an initialize-based revision, each principal has a process of its own.
        { id: 'fl', target: flakyServer(true), clientOptions: { protocolVersions: ['2025-11-25'] } },
      ],
    });
    authenticated = await listen({
      runtime: proxy.runtime(),
      port: 0,
      authenticate: bearerAuthenticator(TOKENS),
    });
    anonymous = await listen({ runtime: proxy.runtime(), port: 0 });
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await authenticated?.close();
    await anonymous?.close();
    await proxy?.close();
    await everythingHttp?.stop();
  });

  async function as(token: string, options: ConnectOptions): Promise<Client> {
    const client = await connect({ http: authenticated.url() }, { ...options, authorization: () => token });
    clients.push(client);
    return client;
  }

  for (const backend of ['se', 'seh']) {
    it(`${backend}: two principals each see their own roots and elicitation answers, never the other's`, async () => {
      const alice = await as(TOKENS[0] as string, person('alice'));
      const bob = await as(TOKENS[1] as string, person('bob'));
      const aliceRoots = text(await alice.callTool(`${backend}.get-roots-list`));
      expect(aliceRoots).toContain('file:///home/alice/private-project');
      const bobRoots = text(await bob.callTool(`${backend}.get-roots-list`));
      expect(bobRoots).toContain('file:///home/bob/private-project');
      expect(bobRoots).not.toContain('alice');
      // And alice's session still has hers.
      expect(text(await alice.callTool(`${backend}.get-roots-list`))).not.toContain('bob');

      const [a, b] = await Promise.all([
        alice.callTool(`${backend}.trigger-elicitation-request`, {}),
        bob.callTool(`${backend}.trigger-elicitation-request`, {}),
      ]);
      expect(text(a)).toContain('alice@example.com');
      expect(text(a)).not.toContain('bob');
      expect(text(b)).toContain('bob@example.com');
      expect(text(b)).not.toContain('alice');
    });
  }

  it("one principal's two calls in flight: over HTTP each input request reaches the call whose stream carried it; over stdio each call has a session of its own", async () => {
    /** A device of alice's whose user answers only when `release` is called. */
    async function slowDevice(name: string) {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let asked = () => {};
      const wasAsked = new Promise<void>((resolve) => {
        asked = resolve;
      });
      const client = await as(TOKENS[0] as string, {
        onElicit: async () => {
          asked();
          await held;
          return {
            action: 'accept',
            content: { name, check: true, integer: 1, email: `${name}@example.com` },
          };
        },
      });
      return { client, wasAsked, release };
    }
    const phone = await as(TOKENS[0] as string, person('phone'));
    for (const backend of ['seh', 'se']) {
      const laptop = await slowDevice('laptop');
      // The laptop's call waits for its user: in flight on alice's session while the phone's runs.
      const waiting = laptop.client.callTool(`${backend}.trigger-elicitation-request`, {});
      await laptop.wasAsked;
      const fromPhone = await phone.callTool(`${backend}.trigger-elicitation-request`, {});
      laptop.release();
      expect(text(await waiting)).toContain('laptop@example.com');
      // Over HTTP the request came on the phone call's stream; over stdio (nothing on the wire says
      // which call it is for) the phone's call ran on a second session of alice's: exact either way.
      expect(text(fromPhone)).toContain('phone@example.com');
      expect(text(fromPhone)).not.toContain('laptop');
    }
  });

  it('a resource one principal created in its session is readable by it through its link, by no one else', async () => {
    const alice = await as(TOKENS[0] as string, person('alice'));
    const bob = await as(TOKENS[1] as string, person('bob'));
    const created = await alice.callTool('se.gzip-file-as-resource', {
      name: 'alice-notes',
      data: `data:text/plain;base64,${Buffer.from('alice private notes').toString('base64')}`,
      outputType: 'resourceLink',
    });
    const exposed = `mcp-proxy://se/${NOTES}`;
    expect(created.content).toEqual([expect.objectContaining({ type: 'resource_link', uri: exposed })]);
    const read = await alice.readResource(exposed);
    expect(read.contents).toEqual([expect.objectContaining({ uri: exposed, mimeType: 'application/gzip' })]);
    // Bob: not listed, not readable (his session has no such resource).
    expect((await bob.allResources()).map((r) => r.uri)).not.toContain(exposed);
    expect(await rpcError(bob.readResource(exposed))).toMatchObject({ code: -32602, data: { uri: exposed } });
    // The catalog comes from the probing session: alice's session resource is not listed for anyone.
    expect(proxy.catalog().resources.map((r) => r.original)).not.toContain(NOTES);
  });

  it('resource updates of a principal session reach only that principal', async () => {
    const alice = await as(TOKENS[0] as string, {});
    const bob = await as(TOKENS[1] as string, {});
    const greeting = 'mcp-proxy://old/demo://greeting';
    const page = 'mcp-proxy://old/ui://everything/greeting.html';
    const bobs = bob.listen({ resourceSubscriptions: [greeting, page] });
    expect(await bobs.ready).toEqual({ resourceSubscriptions: [greeting, page] });
    const alices = alice.listen({ resourceSubscriptions: [greeting] });
    expect(await alices.ready).toEqual({ resourceSubscriptions: [greeting] });
    // The demo's touch notifies its own process's subscribers: alice's backend session only.
    await alice.callTool('old.touch', { uri: 'demo://greeting' });
    expect(await reader(alices)()).toMatchObject({ params: { uri: greeting } });
    // Bob's first update is the one his own call caused: alice's never reached him.
    await bob.callTool('old.touch', { uri: 'ui://everything/greeting.html' });
    expect(await reader(bobs)()).toMatchObject({ params: { uri: page } });
    await alices.close();
    await bobs.close();
  });

  it('list changes of a principal session reach only that principal', async () => {
    const alice = await as(TOKENS[0] as string, person('alice'));
    const bob = await as(TOKENS[1] as string, person('bob'));
    // Their sessions open (server-everything says its conditional tools changed as each starts).
    for (const client of [alice, bob]) {
      await client.callTool('se.echo', { message: 'open' });
      await client.callTool('fl.echo', { text: 'open' });
    }
    const lists = { toolsListChanged: true, resourcesListChanged: true };
    const alices = alice.listen(lists);
    const bobs = bob.listen(lists);
    await Promise.all([alices.ready, bobs.ready]);
    const [nextOfAlice, nextOfBob] = [reader(alices), reader(bobs)];
    const gzip = (name: string) => ({
      name,
      data: `data:text/plain;base64,${Buffer.from(`${name} text`).toString('base64')}`,
      outputType: 'resourceLink',
    });
    // A resource alice's session created, then a tool her session grew: each said to her.
    await alice.callTool('se.gzip-file-as-resource', gzip('alice-listed'));
    expect(await nextOfAlice()).toMatchObject({ method: 'notifications/resources/list_changed' });
    await alice.callTool('fl.grow', {});
    expect(await nextOfAlice()).toMatchObject({ method: 'notifications/tools/list_changed' });
    // Bob's first changes are those his own calls caused, in their order: none of alice's reached him.
    await bob.callTool('fl.grow', {});
    await bob.callTool('se.gzip-file-as-resource', gzip('bob-listed'));
    expect([(await nextOfBob()).method, (await nextOfBob()).method]).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/list_changed',
    ]);
    // The catalog is the probing session's: neither change is in it.
    expect(proxy.catalog().tools.map((t) => t.name)).not.toContain('fl.extra-1');
    await alices.close();
    await bobs.close();
  });

  it('three anonymous frontends at once: each server-initiated request is answered by its own caller', async () => {
    const modern = await connect({ http: anonymous.url() }, person('carol'));
    const legacy = await connect(
      { http: anonymous.url() },
      { ...person('dave'), protocolVersions: ['2025-11-25'] },
    );
    const direct = await frontend(proxy.runtime(), { ...person('erin'), protocolVersions: ['2025-06-18'] });
    clients.push(modern, legacy, direct);
    const callers = [
      ['carol', modern],
      ['dave', legacy],
      ['erin', direct],
    ] as const;
    // Interleaved: every call is in flight before any is answered.
    const results = await Promise.all(
      callers.flatMap(([, client]) => [
        client.callTool('se.get-roots-list'),
        client.callTool('seh.trigger-elicitation-request', {}),
      ]),
    );
    callers.forEach(([name], i) => {
      const [roots, elicited] = [text(results[2 * i] as never), text(results[2 * i + 1] as never)];
      expect(roots).toContain(`file:///home/${name}/private-project`);
      expect(elicited).toContain(`${name}@example.com`);
      for (const [other] of callers) {
        if (other === name) continue;
        expect(roots).not.toContain(other);
        expect(elicited).not.toContain(other);
      }
    });
  });

  it('an anonymous frontend never reaches an authenticated principal session', async () => {
    const alice = await as(TOKENS[0] as string, person('alice'));
    expect(text(await alice.callTool('se.get-roots-list'))).toContain('alice');
    // No roots handler: a session of its own would have no roots to give.
    const stranger = await connect({ http: anonymous.url() }, { protocolVersions: ['2025-11-25'] });
    clients.push(stranger);
    const roots = text(
      await stranger.callTool('se.get-roots-list').catch((error) => ({ content: [{ text: String(error) }] })),
    );
    expect(roots).not.toContain('alice');
  });
});
