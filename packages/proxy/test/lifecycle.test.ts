import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, Subscription } from '@snodo/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProxy, type McpProxy, ProxyError } from '../src/index.js';
import { flakyServer, frontend, healthLog, rpcError, withPidFile } from './helpers/proxy.js';
import { startCuttingServer } from './helpers/raw-http.js';
import { DEMO_MAIN, demoStdio, type Started, startDemoHttp } from './helpers/servers.js';

const UNAVAILABLE = { code: -32603, data: { reason: 'backend_unavailable' } };

/** The next notification of `subscription` with this method (others are skipped). */
async function next(iterator: AsyncIterator<{ method: string; params?: unknown }>, method: string) {
  for (;;) {
    const item = await iterator.next();
    if (item.done) throw new Error(`the subscription ended before ${method}`);
    if (item.value.method === method) return item.value;
  }
}

describe('backends added, refreshed, removed and lost while frontends call', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  });

  async function start(options: Parameters<typeof createProxy>[0]) {
    const proxy = await createProxy(options);
    cleanup.push(() => proxy.close());
    const client = await frontend(proxy.runtime());
    cleanup.push(() => client.close());
    return { proxy, client };
  }

  function toolEvents(client: Client): { subscription: Subscription; iterator: AsyncIterator<any> } {
    const subscription = client.listen({ toolsListChanged: true });
    cleanup.push(() => subscription.close());
    return { subscription, iterator: subscription[Symbol.asyncIterator]() };
  }

  it('add, refresh and remove leave running calls alone; a removed backend fails its calls cleanly', async () => {
    const { proxy, client } = await start({ backends: [{ id: 'gate', target: flakyServer(false) }] });
    const { subscription, iterator } = toolEvents(client);
    await subscription.ready;
    // Calls that stay running until the test releases them, whatever happens meanwhile.
    const running = [1, 2, 3, 4].map(() => client.callTool('gate.wait'));
    await proxy.addBackend({ id: 'demo', target: demoStdio() });
    await next(iterator, 'notifications/tools/list_changed');
    await proxy.refreshBackend('demo');
    await proxy.refreshBackend('gate');
    expect(await client.callTool('demo.echo', { text: 'new' })).toMatchObject({ content: [{ text: 'new' }] });

    await proxy.addBackend({ id: 'extra', target: demoStdio() });
    await next(iterator, 'notifications/tools/list_changed');
    let started!: () => void;
    const progressed = new Promise<void>((resolve) => {
      started = resolve;
    });
    // Observed from the start: its rejection may arrive while removeBackend is still settling.
    const doomed = rpcError(client.callTool('extra.sleep', { ms: 60_000 }, { onProgress: () => started() }));
    running.push(client.callTool('gate.wait'));
    await progressed;
    await proxy.removeBackend('extra');
    expect(await doomed).toMatchObject(UNAVAILABLE);
    await next(iterator, 'notifications/tools/list_changed');
    expect(await rpcError(client.callTool('extra.echo', { text: 'x' }))).toMatchObject({
      code: -32602,
      message: 'Unknown tool: extra.echo',
    });
    // The gate's calls were running through all of it: each ends now, with its own result.
    expect(await client.callTool('gate.release')).toMatchObject({ content: [{ text: '5' }] });
    for (const result of await Promise.all(running))
      expect(result.content).toEqual([{ type: 'text', text: 'released' }]);
    expect(proxy.health().backends.map((b) => [b.id, b.status])).toEqual([
      ['demo', 'up'],
      ['gate', 'up'],
    ]);
    await expect(proxy.removeBackend('extra')).rejects.toMatchObject({ kind: 'unknown_backend' });
  });

  it('an HTTP backend killed mid-call: the call fails cleanly, health turns down, it comes back up after a restart', async () => {
    let server: Started = await startDemoHttp();
    cleanup.push(() => server.stop());
    const log = healthLog();
    const lines: [string, Record<string, unknown>, string | undefined][] = [];
    const at = (level: string) => (fields: Record<string, unknown>, message?: string) =>
      lines.push([level, fields, message]);
    const logger = { info: at('info'), warn: at('warn'), error: at('error') };
    const { proxy, client } = await start({
      reconnectDelayMs: 50,
      backends: [{ id: 'web', target: { http: server.url } }],
      onHealthChange: log.onHealthChange,
      logger,
    });
    // The frontend runtime logs to the proxy's logger too (handler errors, refusals, listen).
    expect(proxy.runtime().logger).toBe(logger);
    expect(client.protocolVersion).toBe('2026-07-28');
    const call = client.callTool('web.sleep', { ms: 60_000 }, { onProgress: () => void server.kill() });
    const error = await rpcError(call);
    expect(error).toMatchObject(UNAVAILABLE);
    expect(error.message).toBe(
      'Backend unavailable: the server behind tool "web.sleep" is not connected; try again later',
    );
    await log.until(proxy, 'web', 'down');
    // Still listed, and honest: unavailable, not unknown.
    expect((await client.allTools()).map((t) => t.name)).toContain('web.echo');
    expect(await rpcError(client.callTool('web.echo', { text: 'x' }))).toMatchObject(UNAVAILABLE);
    expect(proxy.health()).toMatchObject({
      status: 'down',
      backends: [{ id: 'web', status: 'down', error: expect.any(String) }],
    });
    server = await startDemoHttp(server.port);
    await log.until(proxy, 'web', 'up');
    expect(await client.callTool('web.echo', { text: 'back' })).toMatchObject({
      content: [{ text: 'back' }],
    });
    expect(proxy.health().backends[0]).toMatchObject({ status: 'up', error: undefined });
    // The logger saw the same changes: warn when the backend left 'up', info when it came back.
    const web = lines.filter(([, fields]) => fields.backend === 'web');
    expect(web.map(([level, fields, message]) => [level, fields.status, message])).toEqual(
      log.changes
        .filter((change) => change.backend === 'web')
        .map((change) => [
          change.status === 'up' ? 'info' : 'warn',
          change.status,
          `backend web ${change.status}`,
        ]),
    );
    expect(web.map(([, fields]) => fields.status)).toContain('down');
  });

  it('a stdio backend killed mid-call is restarted by the proxy', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'snodo-proxy-')), 'pid');
    const log = healthLog();
    const { proxy, client } = await start({
      reconnectDelayMs: 50,
      backends: [{ id: 'local', target: withPidFile(DEMO_MAIN, ['--stdio'], pidFile) }],
      onHealthChange: log.onHealthChange,
    });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const call = client.callTool(
      'local.sleep',
      { ms: 60_000 },
      { onProgress: () => process.kill(pid, 'SIGKILL') },
    );
    expect(await rpcError(call)).toMatchObject(UNAVAILABLE);
    const down = log.until(proxy, 'local', 'down');
    expect((await down)?.error ?? proxy.health().backends[0]?.error).toMatch(/exited \(signal SIGKILL\)/);
    await log.until(proxy, 'local', 'up');
    expect(Number(readFileSync(pidFile, 'utf8'))).not.toBe(pid);
    expect(await client.callTool('local.echo', { text: 'again' })).toMatchObject({
      content: [{ text: 'again' }],
    });
  });

  it('a refresh that fails keeps the last snapshot and marks the backend degraded', async () => {
    const log = healthLog();
    const { proxy, client } = await start({
      backends: [{ id: 'flaky', target: flakyServer(true) }],
      onHealthChange: log.onHealthChange,
    });
    const { subscription, iterator } = toolEvents(client);
    await subscription.ready;
    await client.callTool('flaky.grow');
    await next(iterator, 'notifications/tools/list_changed');
    const names = [
      'flaky.break',
      'flaky.echo',
      'flaky.extra-1',
      'flaky.fix',
      'flaky.grow',
      'flaky.release',
      'flaky.wait',
    ];
    expect((await client.allTools()).map((t) => t.name)).toEqual(names);
    // break makes tools/list fail and announces a change: the proxy's refresh fails.
    await client.callTool('flaky.break');
    const degraded = await log.until(proxy, 'flaky', 'degraded');
    expect(degraded?.error ?? proxy.health().backends[0]?.error).toBe('the tool list is broken');
    expect((await client.allTools()).map((t) => t.name)).toEqual(names);
    expect(await client.callTool('flaky.echo', { text: 'still' })).toMatchObject({
      content: [{ text: 'still' }],
    });
    const refresh = await proxy.refreshBackend('flaky').catch((error: unknown) => error);
    expect(refresh).toMatchObject({ code: -32603, message: 'the tool list is broken' });
    expect(proxy.health()).toMatchObject({
      status: 'degraded',
      backends: [{ status: 'degraded', items: 7 }],
    });
    await client.callTool('flaky.fix');
    await log.until(proxy, 'flaky', 'up');
    await client.callTool('flaky.grow');
    expect(await proxy.refreshBackend('flaky')).toMatchObject({ status: 'up', error: undefined, items: 8 });
    expect((await client.allTools()).map((t) => t.name)).toContain('flaky.extra-2');
  });

  it('the health probe refreshes every healthIntervalMs (fake timers drive the interval)', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { proxy, client } = await start({
      healthIntervalMs: 60_000,
      backends: [{ id: 'quiet', target: flakyServer(false) }],
    });
    const { subscription, iterator } = toolEvents(client);
    await subscription.ready;
    // Without listChanged the backend never says it changed: only the probe finds out.
    expect(await client.callTool('quiet.grow')).toMatchObject({ content: [{ text: 'extra-1' }] });
    expect(proxy.catalog().tools.map((t) => t.name)).not.toContain('quiet.extra-1');
    vi.advanceTimersByTime(59_999);
    expect(proxy.catalog().tools.map((t) => t.name)).not.toContain('quiet.extra-1');
    vi.advanceTimersByTime(1);
    await next(iterator, 'notifications/tools/list_changed');
    expect(proxy.catalog().tools.map((t) => t.name)).toContain('quiet.extra-1');
    expect(await client.callTool('quiet.extra-1')).toMatchObject({ content: [{ text: 'extra-1' }] });
  });

  it('a call whose stream breaks is not sent again unless the tool says that is harmless (readOnlyHint, idempotentHint)', async () => {
    const server = await startCuttingServer();
    cleanup.push(() => server.close());
    const log = healthLog();
    const { proxy, client } = await start({
      reconnectDelayMs: 50,
      backends: [{ id: 'cut', target: { http: server.url } }],
      onHealthChange: log.onHealthChange,
    });
    // bump may have had its effect: it fails as unavailable and runs once.
    expect(await rpcError(client.callTool('cut.bump'))).toMatchObject(UNAVAILABLE);
    expect(server.calls.bump).toBe(1);
    await log.until(proxy, 'cut', 'up');
    expect(await client.callTool('cut.bump')).toMatchObject({ content: [{ text: 'bump 2' }] });
    // peek is read-only: the broken stream's request is re-issued (a new id) and answered.
    expect(await client.callTool('cut.peek')).toMatchObject({ content: [{ text: 'peek 2' }] });
    expect(server.calls).toEqual({ bump: 2, peek: 2 });
  });

  it('a backend that answers 404 for its session is re-initialized once and the call sent again', async () => {
    let server: Started = await startDemoHttp();
    cleanup.push(() => server.stop());
    const log = healthLog();
    const { proxy, client } = await start({
      healthIntervalMs: 600_000,
      // The killed server ends the listener's session stream, which probes the backend after
      // reconnectDelayMs; a probe while the server restarts would truthfully find it down. Far away:
      // only the call's 404 brings the backend back within this test.
      reconnectDelayMs: 600_000,
      backends: [
        { id: 'old', target: { http: server.url }, clientOptions: { protocolVersions: ['2025-11-25'] } },
      ],
      onHealthChange: log.onHealthChange,
    });
    expect(await client.callTool('old.echo', { text: 'one' })).toMatchObject({ content: [{ text: 'one' }] });
    // A restarted server has no sessions: the proxy's next request gets 404 (the server did not run it).
    await server.kill();
    server = await startDemoHttp(server.port);
    expect(await client.callTool('old.echo', { text: 'two' })).toMatchObject({ content: [{ text: 'two' }] });
    expect(await client.callTool('old.add', { a: 1, b: 2 })).toMatchObject({ structuredContent: { sum: 3 } });
    expect(log.changes.filter((change) => change.status !== 'up')).toEqual([]);
    expect(proxy.health().backends[0]?.status).toBe('up');
  });

  it('initial backends that cannot start are down and retried; addBackend refuses them instead', async () => {
    const log = healthLog();
    const server = await startDemoHttp();
    const port = server.port;
    await server.stop();
    const { proxy, client } = await start({
      // Far away: only refreshBackend reconnects within this test.
      reconnectDelayMs: 600_000,
      backends: [
        { id: 'later', target: { http: `http://127.0.0.1:${port}/mcp` } },
        { id: 'demo', target: demoStdio() },
      ],
      onHealthChange: log.onHealthChange,
    });
    expect(proxy.health()).toMatchObject({
      status: 'degraded',
      backends: [
        { id: 'demo', status: 'up' },
        {
          id: 'later',
          status: 'down',
          error: expect.stringMatching(/^The backend could not be connected: backend "later"/),
        },
      ],
    });
    expect(await client.callTool('demo.echo', { text: 'ok' })).toMatchObject({ content: [{ text: 'ok' }] });
    // Never connected, so its tools are not known; still its calls are unavailable, not unknown.
    expect(await rpcError(client.callTool('later.echo', { text: 'x' }))).toMatchObject(UNAVAILABLE);
    expect(await rpcError(client.readResource('mcp-proxy://later/demo://greeting'))).toMatchObject(
      UNAVAILABLE,
    );
    // Completions too, for a prompt name or a template URI of that backend.
    expect(
      await rpcError(
        client.complete({ type: 'ref/prompt', name: 'later.greet' }, { name: 'name', value: 'A' }),
      ),
    ).toMatchObject(UNAVAILABLE);
    expect(
      await rpcError(
        client.complete(
          { type: 'ref/resource', uri: 'mcp-proxy://later/demo://items/{id}' },
          { name: 'id', value: '1' },
        ),
      ),
    ).toMatchObject(UNAVAILABLE);
    expect(
      await rpcError(
        client.complete({ type: 'ref/prompt', name: 'nobody.greet' }, { name: 'name', value: 'A' }),
      ),
    ).toMatchObject({ code: -32602 });
    expect(await rpcError(client.callTool('nobody.echo', { text: 'x' }))).toMatchObject({ code: -32602 });
    await expect(proxy.refreshBackend('later')).rejects.toMatchObject({ kind: 'connect_failed' });
    const restarted = await startDemoHttp(port);
    cleanup.push(() => restarted.stop());
    // refreshBackend on a down backend reconnects now.
    expect(await proxy.refreshBackend('later')).toMatchObject({
      id: 'later',
      status: 'up',
      error: undefined,
      items: 14,
    });
    await log.until(proxy, 'later', 'up');
    expect(await client.callTool('later.echo', { text: 'now' })).toMatchObject({
      content: [{ text: 'now' }],
    });
    const refused = await proxy
      .addBackend({ id: 'never', target: { http: 'http://127.0.0.1:9/mcp' } })
      .catch((e: unknown) => e);
    expect(ProxyError.is(refused) && refused.kind).toBe('connect_failed');
    await proxy.close();
    await proxy.close();
    await expect(proxy.addBackend({ id: 'after', target: demoStdio() })).rejects.toMatchObject({
      kind: 'closed',
    });
  });
});

export type { McpProxy };
