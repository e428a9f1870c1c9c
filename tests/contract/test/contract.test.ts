import { type Client, connect } from '@snodo/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADAPTERS,
  type Adapter,
  type Bounds,
  type Probe,
  REVISIONS,
  type Served,
  type Wire,
} from './adapters.js';
import { NOTE, PAGE } from './fixtures/server.mjs';
import { type HttpPeer, modernMeta, type RawPeer, rawPeer, type StdioPeer } from './wire.js';

const served: Served[] = [];
const clients: Client[] = [];
const peers: RawPeer[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  for (const peer of peers.splice(0)) await peer.close();
  for (const server of served.splice(0)) await server.close();
});

type Revision = (typeof REVISIONS)[number];
type OnRoots = NonNullable<Parameters<typeof connect>[1]>['onRoots'];

async function openWith(
  adapter: Adapter,
  revision: Revision,
  bounds?: Bounds,
  onRoots?: OnRoots,
): Promise<{ client: Client; server: Served }> {
  const server = await adapter.start(bounds);
  served.push(server);
  const client = await connect(server.target, {
    ...server.connectOptions,
    protocolVersions: [revision],
    ...(onRoots === undefined ? {} : { onRoots }),
  });
  clients.push(client);
  expect(client.protocolVersion).toBe(revision);
  return { client, server };
}

async function open(
  adapter: Adapter,
  revision: Revision,
  bounds?: Bounds,
  onRoots?: OnRoots,
): Promise<Client> {
  return (await openWith(adapter, revision, bounds, onRoots)).client;
}

/** A raw peer on the adapter's wire, with its session open (undefined: the in-process wire has no bytes). */
async function openRaw(adapter: Adapter, revision: Revision, bounds?: Bounds) {
  const server = await adapter.start(bounds);
  served.push(server);
  const peer = await rawPeer(adapter.wire, server, revision);
  if (peer) peers.push(peer);
  return { server, peer };
}

/** Settles with `outcomes` recording each way `call` settles (so settling twice would show). */
function record(call: Promise<unknown>): string[] {
  const outcomes: string[] = [];
  call.then(
    () => outcomes.push('resolved'),
    () => outcomes.push('rejected'),
  );
  return outcomes;
}

const idle = (probe: Probe) =>
  probe.running === 0 && (probe.executor === undefined || probe.executor.running === 0);

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

async function counts(client: Client): Promise<{ started: number; aborted: number }> {
  return JSON.parse(text(await client.callTool('count', {})));
}

/** Calls until `done` holds on the answer (each call is a real round trip; bounded). */
async function until<T>(call: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await call();
    if (done(value)) return value;
  }
  throw new Error('condition never held');
}

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: { code?: unknown }) => error.code,
  );

/** Notifications a flood sends: ~12 MB of `PAGE` updates, far more than loopback sockets or a pipe hold. */
const FLOOD = 3_000;

/** What a subscriber that stops reading meets, by wire (the bound each adapter's README names). */
const SLOW_READER: Record<Wire, { name: string; run(adapter: Adapter, revision: Revision): Promise<void> }> =
  {
    http: {
      name: 'core drops it (what it missed is not queued for it) and returns its slot while it is still stalled, while a reading subscriber gets every notification and calls go on',
      async run(adapter, revision) {
        const { client, server } = await openWith(adapter, revision);
        const reading = client.listen({ resourceSubscriptions: [PAGE] });
        await reading.ready;
        const peer = (await rawPeer('http', server, revision)) as HttpPeer;
        peers.push(peer);
        const slow = await peer.slowSubscription(PAGE);
        const before = await server.settled((state) => (state.executor?.subscriptions ?? 0) >= 2);
        // Read by hand: leaving a for-await loop would close the reading subscription.
        const notes = reading[Symbol.asyncIterator]();
        const received = (async () => {
          for (let count = 0; count < FLOOD; count++) {
            const note = await notes.next();
            if (note.done) return count;
            expect(note.value).toMatchObject({
              method: 'notifications/resources/updated',
              params: { uri: PAGE },
            });
          }
          return FLOOD;
        })();
        expect(text(await client.callTool('flood', { count: FLOOD }))).toBe(String(FLOOD));
        expect(await received).toBe(FLOOD);
        expect(text(await client.callTool('echo', { text: 'still' }))).toBe('still');
        // The slow reader has read nothing since its acknowledgement: its slot is back already.
        const subscriptions = (before.executor?.subscriptions ?? 0) - 1;
        await server.settled((state) => state.executor?.subscriptions === subscriptions);
        // Read at last: what the socket held (the server may have cut the connection instead of ending it).
        const late = (await slow.drain()).filter(
          (message) => (message as { method?: string }).method === 'notifications/resources/updated',
        );
        expect(late.length).toBeLessThan(FLOOD);
      },
    },
    stdio: {
      name: 'serving ends at writeTimeout with SNODO_ERR_WRITE_TIMEOUT (README: a client that stops reading ends the server; one peer per process, so no other caller to keep serving)',
      async run(adapter, revision) {
        const { server, peer } = await openRaw(adapter, revision, { writeTimeout: 300 });
        const stdio = peer as StdioPeer;
        await stdio.subscribe(PAGE);
        stdio.stopReading();
        stdio.write({
          jsonrpc: '2.0',
          id: 'flood',
          method: 'tools/call',
          params: {
            name: 'flood',
            arguments: { count: FLOOD },
            ...(revision === '2026-07-28' ? { _meta: modernMeta(revision) } : {}),
          },
        });
        const exit = await server.settled((state) => state.failure !== undefined);
        expect(exit).toMatchObject({ code: 1, failure: 'SNODO_ERR_WRITE_TIMEOUT' });
      },
    },
    direct: {
      name: "the client's own queue ends it at 1,024 unread with SNODO_ERR_SUBSCRIPTION_OVERFLOW (in process no wire backs up), while calls go on",
      async run(adapter, revision) {
        const client = await open(adapter, revision);
        const slow = client.listen({ resourceSubscriptions: [PAGE] });
        await slow.ready;
        expect(text(await client.callTool('flood', { count: 1_100 }))).toBe('1100');
        expect(slow.ended).toBe(true);
        let read = 0;
        const error = await (async () => {
          for await (const _note of slow) read++;
        })().then(
          () => undefined,
          (failure: unknown) => failure,
        );
        expect(read).toBe(1_024);
        expect(error).toMatchObject({ code: 'SNODO_ERR_SUBSCRIPTION_OVERFLOW' });
        expect(text(await client.callTool('echo', { text: 'still' }))).toBe('still');
      },
    },
  };

/** Progress steps a slow reader's call streams: ~24 MB of ~4 kB steps, far more than sockets, a pipe or a request's buffer hold. */
const CHATTER = 6_000;

/** The progress steps of `messages` (read in order) and the answer that came last. */
function progressOf(messages: unknown[]): { steps: number[]; last: unknown } {
  const steps = messages
    .filter((message) => (message as { method?: string }).method === 'notifications/progress')
    .map((message) => (message as { params: { progress: number } }).params.progress);
  return { steps, last: messages.at(-1) };
}

const ascending = (steps: number[]) =>
  steps.every((step, index) => index === 0 || step > (steps[index - 1] as number));

/** The answer of `chatty` to the call `id`. */
const chattyAnswer = (id: string) => ({
  id,
  result: { content: [{ type: 'text', text: String(CHATTER) }] },
});

/** What a reader that stops reading a call's progress stream meets, by wire. */
const SLOW_PROGRESS: Record<
  Wire,
  { name: string; run(adapter: Adapter, revision: Revision): Promise<void> }
> = {
  http: {
    name: "the request's buffer (1,024 messages) drops the steps that do not fit, the handler ends and its slot returns while the reader is stalled, and the answer arrives last",
    async run(adapter, revision) {
      const { server, peer } = await openRaw(adapter, revision);
      const slow = await (peer as HttpPeer).slowCall('chatty', 'chatty', { count: CHATTER });
      // Done though its reader has read nothing: the steps wait in the bounded buffer, not in the task.
      await server.settled((state) => state.chatted === 1 && idle(state));
      const { steps, last } = progressOf(await slow.drain());
      expect(last).toMatchObject(chattyAnswer('chatty'));
      expect(steps.length).toBeGreaterThan(0);
      expect(steps.length).toBeLessThan(CHATTER);
      expect(ascending(steps)).toBe(true);
    },
  },
  stdio: {
    name: "the output blocks, the request's buffer (1,024 messages) drops the steps that do not fit while the handler runs to its end, and the answer arrives last once the reader reads again",
    async run(adapter, revision) {
      const { server, peer } = await openRaw(adapter, revision, { writeTimeout: 25_000 });
      const stdio = peer as StdioPeer;
      stdio.stopReading();
      stdio.write({
        jsonrpc: '2.0',
        id: 'chatty',
        method: 'tools/call',
        params: {
          name: 'chatty',
          arguments: { count: CHATTER },
          _meta:
            revision === '2026-07-28'
              ? { ...modernMeta(revision), progressToken: 'chatty' }
              : { progressToken: 'chatty' },
        },
      });
      await server.observed((state) => state.chatted === 1);
      stdio.resumeReading();
      const { steps, last } = progressOf(await stdio.readUntil('chatty'));
      expect(last).toMatchObject(chattyAnswer('chatty'));
      expect(steps.length).toBeGreaterThan(0);
      expect(steps.length).toBeLessThan(CHATTER);
      expect(ascending(steps)).toBe(true);
      await stdio.close();
      expect(await server.settled(idle)).toMatchObject({ chatted: 1, executor: { running: 0 } });
    },
  },
  direct: {
    name: 'in process nothing backs up (onProgress is called as each step is written): every step arrives in order, then the answer',
    async run(adapter, revision) {
      const { client, server } = await openWith(adapter, revision);
      const steps: number[] = [];
      const result = await client.callTool(
        'chatty',
        { count: CHATTER },
        { onProgress: ({ progress }) => steps.push(progress) },
      );
      expect(text(result)).toBe(String(CHATTER));
      expect(steps).toEqual(Array.from({ length: CHATTER }, (_, index) => index + 1));
      expect(await server.settled((state) => state.chatted === 1)).toMatchObject({ running: 0 });
    },
  },
};

describe.each(ADAPTERS)('$name', (adapter) => {
  describe.each(REVISIONS)('%s', (revision) => {
    it('progress notifications come before the result, in order', async () => {
      const client = await open(adapter, revision);
      const seen: string[] = [];
      const result = await client.callTool(
        'steps',
        {},
        { onProgress: ({ progress, total }) => seen.push(`${progress}/${total}`) },
      );
      seen.push(text(result));
      expect(seen).toEqual(['1/2', '2/2', 'done']);
    });

    it('a cancelled call rejects once, its handler is aborted, and the connection answers the next call', async () => {
      const client = await open(adapter, revision);
      const controller = new AbortController();
      const cancelled = client.callTool('sleep', {}, { signal: controller.signal });
      const outcomes: string[] = [];
      cancelled.then(
        () => outcomes.push('resolved'),
        () => outcomes.push('rejected'),
      );
      await until(
        () => counts(client),
        ({ started }) => started === 1,
      );
      controller.abort();
      await until(
        () => counts(client),
        ({ aborted }) => aborted === 1,
      );
      await cancelled.catch(() => {});
      expect(text(await client.callTool('echo', { text: 'after' }))).toBe('after');
      expect(outcomes).toEqual(['rejected']);
      expect(await counts(client)).toEqual({ started: 1, aborted: 1 });
    });

    it('a server→client request (roots/list) is answered, and an answer unlike its schema is refused with -32602', async () => {
      let uri: unknown = 'file:///work';
      // An answer unlike ListRootsResult on purpose (uri not a string), to check the server validates it.
      const client = await open(adapter, revision, undefined, () => ({ roots: [{ uri: uri as string }] }));
      expect(text(await client.callTool('roots', {}))).toBe('file:///work');
      uri = 42;
      const refused = await client.callTool('roots', {}).then(
        (result) => ({ isError: result.isError === true, text: text(result) }),
        (error: { code?: unknown }) => ({ code: error.code }),
      );
      expect(refused).toEqual({ code: -32602 });
    });

    if (adapter.overload === 'paced') {
      it('a call over the executor bounds is not refused: it waits (stdio stops reading) and is answered once the slot frees', async () => {
        const client = await open(adapter, revision, { maxConcurrency: 1 });
        const controller = new AbortController();
        const holding = client.callTool('sleep', {}, { signal: controller.signal });
        holding.catch(() => {});
        // Not refused: it waits behind the sleep, which holds the only slot until cancelled.
        const waiting = client.callTool('echo', { text: 'paced' });
        controller.abort();
        expect(text(await waiting)).toBe('paced');
      });
    }

    if (adapter.overload === 'refused') {
      it('an executor refusal is -32000 for that call only; the connection serves later calls', async () => {
        const client = await open(adapter, revision, { maxConcurrency: 1, maxQueue: 0 });
        const controller = new AbortController();
        const holding = client.callTool('sleep', {}, { signal: controller.signal });
        holding.catch(() => {});
        const code = await until(
          () => codeOf(client.callTool('echo', { text: 'x' })),
          (value) => value !== undefined,
        );
        expect(code).toBe(-32000);
        controller.abort();
        await until(
          () => codeOf(client.callTool('echo', { text: 'x' })),
          (value) => value === undefined,
        );
      });
    }

    const disconnect =
      adapter.disconnect === 'aborts'
        ? 'its handler is aborted'
        : `its handler runs to its deadline (${adapter.disconnect.runsToDeadline})`;
    it(`a client that disconnects mid-call: the call rejects once, ${disconnect}, and nothing stays running`, async () => {
      // Without a deadline a handler the disconnect does not abort would never end.
      const bounds = adapter.disconnect === 'aborts' ? {} : { requestTimeout: 1_000 };
      const { client, server } = await openWith(adapter, revision, bounds);
      const call = client.callTool('sleep', {});
      const outcomes = record(call);
      await until(
        () => counts(client),
        ({ started }) => started === 1,
      );
      await client.close();
      await call.catch(() => {});
      const probe = await server.settled((state) => state.aborted === 1 && idle(state));
      expect(probe).toMatchObject({ started: 1, aborted: 1, running: 0 });
      expect(outcomes).toEqual(['rejected']);
    });

    const sessionEnd =
      adapter.wire === 'stdio'
        ? 'stdin EOF'
        : adapter.wire === 'direct'
          ? 'closing the in-process transport'
          : revision === '2026-07-28'
            ? 'closing the listen stream (2026-07-28 has no sessions)'
            : 'DELETE of the session';
    it(`ending the session (${sessionEnd}) ends its open subscription: the server releases its stream`, async () => {
      const { client, server } = await openWith(adapter, revision);
      const subscription = client.listen({ resourceSubscriptions: [NOTE] });
      expect(await subscription.ready).toEqual({ resourceSubscriptions: [NOTE] });
      const notes = subscription[Symbol.asyncIterator]();
      expect(text(await client.callTool('touch', {}))).toBe('touched');
      expect((await notes.next()).value).toMatchObject({
        method: 'notifications/resources/updated',
        params: { uri: NOTE },
      });
      await client.close();
      expect(await notes.next()).toEqual({ value: undefined, done: true });
      const probe = await server.settled((state) => (state.executor?.subscriptions ?? 0) === 0);
      expect(probe.executor?.subscriptions ?? 0).toBe(0);
    });

    it(`a subscriber that stops reading: ${SLOW_READER[adapter.wire].name}`, async () => {
      await SLOW_READER[adapter.wire].run(adapter, revision);
    });

    it(`a reader that stops reading a call's progress stream: ${SLOW_PROGRESS[adapter.wire].name}`, async () => {
      await SLOW_PROGRESS[adapter.wire].run(adapter, revision);
    });

    if (adapter.wire === 'http' && revision !== '2026-07-28') {
      it('a DELETE of the session ends its open GET stream from the server side, and the session is gone', async () => {
        const { server, peer } = await openRaw(adapter, revision);
        const http = peer as HttpPeer;
        const stream = await http.stream();
        expect(stream.status).toBe(200);
        await server.settled((state) => state.executor?.subscriptions === 1);
        expect(await http.delete()).toBe(204);
        // The body ends because the server ended it: this peer never cancels it.
        await stream.text();
        await server.settled((state) => state.executor?.subscriptions === 0);
        const after = await http.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
        expect(after.status).toBe(404);
      });
    }

    const batches =
      adapter.wire === 'direct'
        ? ' (the in-process client transport carries no batches: nothing to admit)'
        : revision === '2025-03-26'
          ? adapter.overload === 'paced'
            ? ': an item over the bounds waits for room (stdio paces), then runs'
            : ': an item over the bounds gets its own -32000, the others run'
          : `: refused whole (-32600) on ${revision}, which has no batches, and nothing of it runs`;
    it(`a batch is admitted item by item${batches}`, async () => {
      const { server, peer } = await openRaw(adapter, revision, {
        maxConcurrency: 1,
        maxQueue: 0,
        requestTimeout: 500,
      });
      if (peer === undefined) {
        expect(adapter.wire).toBe('direct');
        return;
      }
      const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args },
      });
      const answer = await peer.send([
        call(1, 'sleep'),
        call(2, 'echo', { text: 'x' }),
        call(3, 'echo', { text: 'y' }),
      ]);
      if (revision !== '2025-03-26') {
        expect(answer.body).toMatchObject({ id: null, error: { code: -32600 } });
        if (answer.status !== undefined) expect(answer.status).toBe(400);
        await peer.close();
        expect(await server.settled(idle)).toMatchObject({ started: 0 });
        return;
      }
      expect(answer.status ?? 200).toBe(200);
      const items = (answer.body as { id: number; result?: unknown; error?: { code: number } }[])
        .map((item) => ({
          id: item.id,
          outcome: item.error?.code ?? text(item.result as { content: unknown[] }),
        }))
        .sort((a, b) => a.id - b.id);
      // The sleep holds the only slot until its deadline (-32001).
      expect(items).toEqual(
        adapter.overload === 'paced'
          ? [
              { id: 1, outcome: -32001 },
              { id: 2, outcome: 'x' },
              { id: 3, outcome: 'y' },
            ]
          : [
              { id: 1, outcome: -32001 },
              { id: 2, outcome: -32000 },
              { id: 3, outcome: -32000 },
            ],
      );
      await peer.close();
      expect(await server.settled(idle)).toMatchObject({ started: 1, aborted: 1 });
    });
  });
});
