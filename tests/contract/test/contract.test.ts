import { type Client, connect } from '@snodo/client';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, type Adapter, type Bounds, REVISIONS, type Served } from './adapters.js';

const served: Served[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  for (const server of served.splice(0)) await server.close();
});

type Revision = (typeof REVISIONS)[number];
type OnRoots = NonNullable<Parameters<typeof connect>[1]>['onRoots'];

async function open(
  adapter: Adapter,
  revision: Revision,
  bounds?: Bounds,
  onRoots?: OnRoots,
): Promise<Client> {
  const server = await adapter.start(bounds);
  served.push(server);
  const client = await connect(server.target, {
    protocolVersions: [revision],
    ...(onRoots === undefined ? {} : { onRoots }),
  });
  clients.push(client);
  expect(client.protocolVersion).toBe(revision);
  return client;
}

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
  });
});
