// One principal's calls in flight at once on a backend whose wire does not say which call a
// server-initiated request is for (stdio): each input call runs on a session of its own (a lane),
// so every roots/elicitation request reaches the call that caused it (issue 17).
import { type Client, type ConnectOptions, connect } from '@snodo/client';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerAuthenticator } from '../src/cli/tokens.js';
import { createProxy, type McpProxy, type ProxyOptions, type SessionChange } from '../src/index.js';
import { everythingStdio } from './helpers/servers.js';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789';

function text(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? JSON.stringify(block)).join('\n');
}

/**
 * One of alice's devices, with its own roots and elicitation answer (so a mix-up shows). While
 * held, its answers wait for `release()`; `asked` resolves once it was asked something.
 */
function device(name: string) {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = () => {};
  const wasAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const options: ConnectOptions = {
    onRoots: async () => {
      asked();
      await held;
      return { roots: [{ uri: `file:///devices/${name}`, name: `${name}'s files` }] };
    },
    onElicit: async () => {
      asked();
      await held;
      return { action: 'accept', content: { name, check: true, integer: 1, email: `${name}@example.com` } };
    },
  };
  return { options, wasAsked, release };
}

describe("one principal's concurrent calls on a stdio backend: input requests reach the call that caused them", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  });

  async function start(options: ProxyOptions = {}) {
    const changes: SessionChange[] = [];
    let onClosed: ((change: SessionChange) => void) | undefined;
    const proxy: McpProxy = await createProxy({
      backends: [{ id: 'se', target: everythingStdio() }],
      onSessionChange: (change) => {
        changes.push(change);
        if (change.change === 'closed') onClosed?.(change);
      },
      ...options,
    });
    /** The first session closing after the `seen`th change: already recorded, or the next one. */
    const closedAfter = (seen: number) =>
      new Promise<SessionChange>((resolve) => {
        const past = changes.slice(seen).find((change) => change.change === 'closed');
        if (past) resolve(past);
        else onClosed = resolve;
      });
    cleanup.push(() => proxy.close());
    const http: McpHttpServer = await listen({
      runtime: proxy.runtime(),
      port: 0,
      authenticate: bearerAuthenticator([ALICE, BOB]),
    });
    cleanup.push(() => http.close());
    const as = async (options: ConnectOptions, token = ALICE): Promise<Client> => {
      const client = await connect({ http: http.url() }, { ...options, authorization: () => token });
      cleanup.push(() => client.close());
      return client;
    };
    return { proxy, changes, closedAfter, as };
  }

  /**
   * Alice's `held` device calls `tool` and waits for its user (its call stays in flight); then her
   * `other` device, which answers at once, calls it too. Resolves with the other call's result,
   * and the held call.
   */
  async function overlapping(held: Client, waits: ReturnType<typeof device>, other: Client, tool: string) {
    const heldCall = held.callTool(tool, {});
    await waits.wasAsked;
    const otherResult = await other.callTool(tool, {});
    return { heldCall, otherResult };
  }

  it("two devices of alice elicit at once: each call gets its own device's answer; the second session is reused", async () => {
    const { proxy, changes, as } = await start();
    const [laptop, phone] = [device('laptop'), device('phone')];
    phone.release();
    // One on 2026-07-28 (input rounds), one initialize-based (server-initiated requests).
    const fromLaptop = await as(laptop.options);
    const fromPhone = await as({ ...phone.options, protocolVersions: ['2025-11-25'] });
    const calls = await overlapping(fromLaptop, laptop, fromPhone, 'se.trigger-elicitation-request');
    const b = text(calls.otherResult);
    expect(b).toContain('phone@example.com');
    expect(b).not.toContain('laptop');
    // The laptop's call is still in flight on alice's first session; the phone's ran on a second.
    expect(proxy.health().backends[0]?.sessions).toBe(2);
    laptop.release();
    const a = text(await calls.heldCall);
    expect(a).toContain('laptop@example.com');
    expect(a).not.toContain('phone');

    // Two more devices at once: the idle second session carries the second call, none is opened.
    const [tablet, desktop] = [device('tablet'), device('desktop')];
    desktop.release();
    const again = await overlapping(
      await as(tablet.options),
      tablet,
      await as(desktop.options),
      'se.trigger-elicitation-request',
    );
    expect(text(again.otherResult)).toContain('desktop@example.com');
    tablet.release();
    expect(text(await again.heldCall)).toContain('tablet@example.com');
    expect(changes.filter((c) => c.change === 'opened')).toHaveLength(2);
  });

  it("two devices of alice list roots at once: each call gets its own device's roots", async () => {
    const { as } = await start();
    const [laptop, phone] = [device('laptop'), device('phone')];
    phone.release();
    const calls = await overlapping(
      await as(laptop.options),
      laptop,
      await as(phone.options),
      'se.get-roots-list',
    );
    const b = text(calls.otherResult);
    expect(b).toContain('file:///devices/phone');
    expect(b).not.toContain('laptop');
    laptop.release();
    const a = text(await calls.heldCall);
    expect(a).toContain('file:///devices/laptop');
    expect(a).not.toContain('phone');
  });

  it('a resource the second session created is read from that session', async () => {
    const { as } = await start();
    const laptop = device('laptop');
    const fromLaptop = await as(laptop.options);
    const fromPhone = await as({});
    const waiting = fromLaptop.callTool('se.trigger-elicitation-request', {});
    await laptop.wasAsked;
    // Alice's first session is busy: the tool runs on a second one, which alone holds the resource.
    const created = await fromPhone.callTool('se.gzip-file-as-resource', {
      name: 'phone-notes',
      data: `data:text/plain;base64,${Buffer.from('notes taken on the phone').toString('base64')}`,
      outputType: 'resourceLink',
    });
    const link = (created.content[0] as { uri: string }).uri;
    expect(link).toBe('mcp-proxy://se/demo://resource/session/phone-notes');
    // Both sessions free again: the read goes to the one that holds the resource, not the first.
    laptop.release();
    expect(text(await waiting)).toContain('laptop@example.com');
    expect((await fromPhone.readResource(link)).contents).toEqual([
      expect.objectContaining({ uri: link, mimeType: 'application/gzip' }),
    ]);
  });

  it('a further session closes once unused for backendSessionIdleMs, even while its principal listens', async () => {
    const { proxy, changes, closedAfter, as } = await start({ backendSessionIdleMs: 100 });
    const [laptop, phone] = [device('laptop'), device('phone')];
    phone.release();
    const fromLaptop = await as(laptop.options);
    // Alice's open stream keeps her first session (and its subscriptions) in use, not further ones.
    const stream = fromLaptop.listen({ toolsListChanged: true });
    await stream.ready;
    const seen = changes.length;
    const calls = await overlapping(
      fromLaptop,
      laptop,
      await as(phone.options),
      'se.trigger-elicitation-request',
    );
    expect(text(calls.otherResult)).toContain('phone@example.com');
    expect(await closedAfter(seen)).toEqual({ backend: 'se', change: 'closed', reason: 'idle', sessions: 1 });
    laptop.release();
    expect(text(await calls.heldCall)).toContain('laptop@example.com');
    expect(proxy.health().backends[0]?.sessions).toBe(1);
    await stream.close();
  });

  it('at maxSessions the second call shares the session: its input request is refused, never given to the other call', async () => {
    const { proxy, as } = await start({
      backends: [{ id: 'se', target: everythingStdio(), maxSessions: 1 }],
    });
    const [laptop, phone] = [device('laptop'), device('phone')];
    phone.release();
    const calls = await overlapping(
      await as(laptop.options),
      laptop,
      await as(phone.options),
      'se.trigger-elicitation-request',
    );
    const fromPhoneResult = calls.otherResult;
    expect(proxy.health().backends[0]?.sessions).toBe(1);
    // The backend got an error for its request (server-everything reports it as the tool's error).
    expect(fromPhoneResult.isError).toBe(true);
    expect(text(fromPhoneResult)).toMatch(/cannot tell which of its 2 requests/);
    laptop.release();
    const a = text(await calls.heldCall);
    expect(a).toContain('laptop@example.com');
    expect(a).not.toContain('phone');
  });

  it("a further session never closes another principal's first session to make room", async () => {
    const { proxy, changes, as } = await start({
      backends: [{ id: 'se', target: everythingStdio(), maxSessions: 2 }],
    });
    const bob = await as(device('bob').options, BOB);
    expect(await bob.callTool('se.echo', { message: 'hi' })).toMatchObject({
      content: [{ text: 'Echo: hi' }],
    });
    const [laptop, phone] = [device('laptop'), device('phone')];
    phone.release();
    const calls = await overlapping(
      await as(laptop.options),
      laptop,
      await as(phone.options),
      'se.trigger-elicitation-request',
    );
    // Bob's idle session stays: alice's second call shares her session (its input request refused).
    expect(text(calls.otherResult)).toMatch(/cannot tell which of its 2 requests/);
    expect(changes.filter((c) => c.change === 'closed')).toEqual([]);
    expect(proxy.health().backends[0]?.sessions).toBe(2);
    laptop.release();
    expect(text(await calls.heldCall)).toContain('laptop@example.com');
  });
});
