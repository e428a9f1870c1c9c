// One backend answer larger than the backend client accepts fails that call alone, at once, and
// says why; the backend stays up and its other calls go on (issue 16, item 5).
import type { Target } from '@snodo/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createProxy } from '../src/index.js';
import { frontend, rpcError } from './helpers/proxy.js';
import { demoStdio, type Started, startDemoHttp } from './helpers/servers.js';

const LIMIT = 100_000;

describe('an answer larger than the backend client accepts', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  });

  async function check(target: Target) {
    const proxy = await createProxy({
      backends: [
        {
          id: 'demo',
          target,
          // A deadline far longer than the test needs: a dropped answer would show as -32001.
          clientOptions: { maxMessageBytes: LIMIT, maxLineBytes: LIMIT, timeout: 20_000 },
        },
      ],
    });
    cleanup.push(() => proxy.close());
    const client = await frontend(proxy.runtime());
    cleanup.push(() => client.close());

    // A call in flight on the same backend, proven by its first progress report.
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      started = resolve;
    });
    const sleeping = client.callTool('demo.sleep', { ms: 1_500 }, { onProgress: () => started() });
    await inFlight;

    const error = await rpcError(client.callTool('demo.echo', { text: 'x'.repeat(2 * LIMIT) }));
    expect(error).toMatchObject({
      code: -32603,
      data: { reason: 'response_too_large', limit: LIMIT },
    });
    expect(error.message).toMatch(/larger than the proxy accepts/);
    expect(proxy.health().backends).toMatchObject([{ id: 'demo', status: 'up' }]);

    expect((await sleeping).structuredContent).toMatchObject({ sleptMs: 1_500 });
    expect((await client.callTool('demo.echo', { text: 'small' })).content).toEqual([
      { type: 'text', text: 'small' },
    ]);
    expect(proxy.health().backends).toMatchObject([{ id: 'demo', status: 'up' }]);
  }

  it('over HTTP: only that call fails, the backend stays up, the call in flight completes', async () => {
    const server: Started = await startDemoHttp();
    cleanup.push(() => server.stop());
    await check({ http: server.url });
  });

  it('over stdio: only that call fails, at once (not at its timeout), and the call in flight completes', async () => {
    await check(demoStdio());
  });
});
