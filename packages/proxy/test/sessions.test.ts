// The principals' backend sessions are bounded: maxBackendSessions per backend (the least recently
// used idle one is closed to make room; none idle → an honest -32000), idle expiry, one-request
// sessions for callers without identity, and sessionMode 'shared' for stateless backends.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, type ConnectOptions, connect } from '@snodo/client';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterEach, describe, expect, it } from 'vitest';
import { createProxy, type McpProxy, type ProxyOptions, type SessionChange } from '../src/index.js';
import { frontend, rpcError, withPidLog } from './helpers/proxy.js';
import { EVERYTHING_MAIN, everythingStdio } from './helpers/servers.js';

function text(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? '').join('\n');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A frontend with its own roots, whose elicitation answer waits until `release()` once `hold()` was called. */
function person(name: string) {
  let held: Promise<void> | undefined;
  let release = () => {};
  let asked = () => {};
  let waiting = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const options: ConnectOptions = {
    onRoots: async () => ({ roots: [{ uri: `file:///home/${name}/project` }] }),
    onElicit: async () => {
      asked();
      await held;
      return { action: 'accept', content: { name, check: true, integer: 1, email: `${name}@example.com` } };
    },
  };
  return {
    options,
    /** The next elicitation waits for `release`; resolves once it is asked. */
    hold(): Promise<void> {
      held = new Promise((resolve) => {
        release = resolve;
      });
      const asking = waiting;
      return asking;
    },
    release(): void {
      waiting = new Promise((resolve) => {
        asked = resolve;
      });
      release();
    },
  };
}

/** Records session changes; `next(match)` resolves with the first change (past or coming) that matches. */
function sessionLog() {
  const changes: SessionChange[] = [];
  const waiters: { match: (c: SessionChange) => boolean; resolve(c: SessionChange): void }[] = [];
  return {
    changes,
    onSessionChange(change: SessionChange) {
      changes.push(change);
      for (const waiter of [...waiters]) {
        if (waiter.match(change)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(change);
        }
      }
    },
    next(match: (c: SessionChange) => boolean, after = 0): Promise<SessionChange> {
      const seen = changes.slice(after).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

describe('bounded backend sessions', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
  });

  async function start(options: ProxyOptions): Promise<McpProxy> {
    const proxy = await createProxy(options);
    cleanup.push(() => proxy.close());
    return proxy;
  }

  async function open(proxy: McpProxy, options: ConnectOptions): Promise<Client> {
    const client = await frontend(proxy.runtime(), options);
    cleanup.push(() => client.close());
    return client;
  }

  it('at maxSessions a new principal closes the least recently used idle session; with none idle it is refused', async () => {
    const pidLog = join(mkdtempSync(join(tmpdir(), 'snodo-sessions-')), 'pids');
    const log = sessionLog();
    const proxy = await start({
      backends: [{ id: 'se', target: withPidLog(EVERYTHING_MAIN, ['stdio'], pidLog), maxSessions: 2 }],
      onSessionChange: log.onSessionChange,
    });
    // The first line is the probing session's process; each principal session adds one.
    const pids = () => readFileSync(pidLog, 'utf8').trim().split('\n').map(Number);
    const sessions = () => proxy.health().backends[0]?.sessions;
    const [a, b, c] = [person('a'), person('b'), person('c')];
    const [alice, bob, carol] = (await Promise.all([a, b, c].map((p) => open(proxy, p.options)))) as [
      Client,
      Client,
      Client,
    ];

    expect(text(await alice.callTool('se.get-roots-list'))).toContain('file:///home/a/project');
    expect(text(await bob.callTool('se.get-roots-list'))).toContain('file:///home/b/project');
    // At the limit: two sessions, two processes besides the probe's.
    expect(sessions()).toBe(2);
    expect(log.changes.filter((change) => change.change === 'closed')).toEqual([]);
    const [probe, alices, bobs] = pids() as [number, number, number];
    expect([alive(probe), alive(alices), alive(bobs)]).toEqual([true, true, true]);

    // One over: alice's session (least recently used, idle) is closed cleanly, its process gone.
    expect(text(await carol.callTool('se.get-roots-list'))).toContain('file:///home/c/project');
    expect(log.changes).toContainEqual({ backend: 'se', change: 'closed', reason: 'evicted', sessions: 1 });
    expect(sessions()).toBe(2);
    expect([alive(alices), alive(bobs)]).toEqual([false, true]);

    // Alice's next call transparently gets a new session (bob's, now the oldest, makes room).
    expect(text(await alice.callTool('se.get-roots-list'))).toContain('file:///home/a/project');
    expect(alive(bobs)).toBe(false);
    expect(pids()).toHaveLength(5);

    // Both sessions in use: alice and carol each wait for their user's answer.
    const asked = [a.hold(), c.hold()];
    const waiting = [
      alice.callTool('se.trigger-elicitation-request', {}),
      carol.callTool('se.trigger-elicitation-request', {}),
    ];
    await Promise.all(asked);
    // Bob is refused at once, honestly, rather than given someone else's session.
    expect(await rpcError(bob.callTool('se.get-roots-list'))).toMatchObject({
      code: -32000,
      data: { reason: 'backend_sessions_exhausted', limit: 2 },
    });
    a.release();
    c.release();
    const [aliceDone, carolDone] = await Promise.all(waiting);
    expect(text(aliceDone as never)).toContain('a@example.com');
    expect(text(carolDone as never)).toContain('c@example.com');
    // Idle again: bob gets a session now.
    expect(text(await bob.callTool('se.get-roots-list'))).toContain('file:///home/b/project');
    expect(sessions()).toBe(2);
  });

  it('a session unused for backendSessionIdleMs is closed; the next call opens a new one', async () => {
    const log = sessionLog();
    const proxy = await start({
      backendSessionIdleMs: 50,
      backends: [{ id: 'se', target: everythingStdio() }],
      onSessionChange: log.onSessionChange,
    });
    const alice = await open(proxy, person('a').options);
    expect(text(await alice.callTool('se.get-roots-list'))).toContain('file:///home/a/project');
    expect(await log.next((c) => c.change === 'closed')).toEqual({
      backend: 'se',
      change: 'closed',
      reason: 'idle',
      sessions: 0,
    });
    const seen = log.changes.length;
    expect(text(await alice.callTool('se.get-roots-list'))).toContain('file:///home/a/project');
    expect(await log.next((c) => c.change === 'opened', seen)).toMatchObject({ sessions: 1 });
  });

  it('a caller without identity or connection (2026-07-28 HTTP) gets a session for its request only, input rounds included', async () => {
    const log = sessionLog();
    const proxy = await start({
      backends: [{ id: 'se', target: everythingStdio() }],
      onSessionChange: log.onSessionChange,
    });
    const http: McpHttpServer = await listen({ runtime: proxy.runtime(), port: 0 });
    cleanup.push(() => http.close());
    const client = await connect({ http: http.url() }, person('zoe').options);
    cleanup.push(() => client.close());
    expect(client.protocolVersion).toBe('2026-07-28');
    // The backend's roots/list becomes an input round; the retry finds the call still parked.
    expect(text(await client.callTool('se.get-roots-list'))).toContain('file:///home/zoe/project');
    expect(await log.next((c) => c.change === 'closed')).toEqual({
      backend: 'se',
      change: 'closed',
      reason: 'ephemeral',
      sessions: 0,
    });
  });

  it("sessionMode 'shared' keeps one client for everyone: for backends known to keep no per-session state", async () => {
    const proxy = await start({ backends: [{ id: 'se', target: everythingStdio(), sessionMode: 'shared' }] });
    const alice = await open(proxy, person('a').options);
    const bob = await open(proxy, person('b').options);
    expect(text(await alice.callTool('se.get-roots-list'))).toContain('file:///home/a/project');
    // What per-principal sessions prevent: server-everything cached alice's roots for its one session.
    expect(text(await bob.callTool('se.get-roots-list'))).toContain('file:///home/a/project');
    expect(proxy.health().backends[0]?.sessions).toBe(0);
  });
});
