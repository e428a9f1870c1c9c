// Every JSON-RPC error class, as the official clients see it: the v2 client (@modelcontextprotocol/client)
// on every revision and the 1.x client (@modelcontextprotocol/sdk) on the initialize-based ones, over
// real sockets against the listener. A client "reads" an error when it surfaces the JSON-RPC code and
// data (ProtocolError / McpError); an error it cannot read arrives as an HTTP error (SdkHttpError /
// StreamableHTTPError) with the body as text. The transport-http README's status table says which.
import {
  SdkHttpError,
  Client as V2Client,
  ProtocolError as V2ProtocolError,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPError,
  StreamableHTTPClientTransport as V1Transport,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  createServer,
  ErrorCode,
  ProtocolError,
  type ProtocolVersion,
  type Runtime,
  resource,
  tool,
} from '@snodo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ListenOptions, listen, type McpHttpServer } from '../src/index.js';
import { gate } from './helpers.js';

type Kind = 'v2' | 'v1';
type Fetch = typeof fetch;

/** What a client made of a failed call. */
interface Seen {
  readonly code?: number;
  readonly data?: unknown;
  /** Set when the client saw only an HTTP error: its status. */
  readonly httpStatus?: number;
  readonly text?: string;
}

/** The part of both clients the tests use, so each check is written once. */
interface Peer {
  callTool(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  readResource(uri: string): Promise<unknown>;
  request(method: string): Promise<unknown>;
  close(): Promise<void>;
}

function seen(error: unknown): Seen {
  if (error instanceof V2ProtocolError || error instanceof McpError)
    return { code: error.code, data: error.data };
  if (error instanceof SdkHttpError) {
    const data = error.data as { status: number; text?: string };
    return { httpStatus: data.status, text: data.text ?? '' };
  }
  if (error instanceof StreamableHTTPError) return { httpStatus: error.code ?? 0, text: error.message };
  throw error;
}

async function failure(call: Promise<unknown>): Promise<Seen> {
  try {
    await call;
  } catch (error) {
    return seen(error);
  }
  throw new Error('expected the call to fail');
}

const anyResult = z.object({}).passthrough();

/** A fetch wrapper that edits each request's headers: the faults the tests inject. */
function editHeaders(edit: (headers: Headers) => void): (f: Fetch) => Fetch {
  return (f) => (input, init) => {
    const headers = new Headers(init?.headers);
    edit(headers);
    return f(input, { ...init, headers });
  };
}

/** The calls both official clients share, as the tests use them. */
interface OfficialClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  request(request: { method: string }, schema: typeof anyResult): Promise<unknown>;
  close(): Promise<void>;
}

function peerOf(client: OfficialClient): Peer {
  return {
    callTool: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as Record<string, unknown>,
    readResource: (uri) => client.readResource({ uri }),
    request: (method) => client.request({ method }, anyResult),
    close: () => client.close(),
  };
}

async function connectPeer(kind: Kind, url: string, version: ProtocolVersion, wrap?: (f: Fetch) => Fetch) {
  const fetchImpl = wrap ? wrap(fetch) : fetch;
  if (kind === 'v2') {
    const client = new V2Client(
      { name: 'errors-v2', version: '1.0.0' },
      version === '2026-07-28' ? { versionNegotiation: { mode: { pin: version } } } : {},
    );
    await client.connect(new V2Transport(new URL(url), { fetch: fetchImpl }));
    return peerOf(client);
  }
  const client = new V1Client({ name: 'errors-v1', version: '1.0.0' });
  await client.connect(new V1Transport(new URL(url), { fetch: fetchImpl }));
  return peerOf(client);
}

/** Connects a peer, runs `body` with it, and always closes it. */
async function withPeer<T>(
  kind: Kind,
  url: string,
  version: ProtocolVersion,
  body: (peer: Peer) => Promise<T>,
  wrap?: (f: Fetch) => Fetch,
): Promise<T> {
  const peer = await connectPeer(kind, url, version, wrap);
  try {
    return await body(peer);
  } finally {
    await peer.close();
  }
}

let held = gate();

function runtimeFor(version: ProtocolVersion): Runtime {
  return createServer({
    name: 'errors',
    version: '1.0.0',
    protocolVersions: [version],
    tools: [
      tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
      tool({
        name: 'broken',
        handler: () => {
          throw new ProtocolError(ErrorCode.InternalError, 'Backend unavailable', {
            reason: 'backend_unavailable',
          });
        },
      }),
      tool({
        name: 'hold',
        handler: async () => {
          await held.promise;
          return 'released';
        },
      }),
      tool({
        name: 'hang',
        handler: (_args, context) =>
          new Promise<string>((resolve) =>
            context.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
          ),
      }),
      tool({ name: 'needs-sampling', requiredClientCapabilities: { sampling: {} }, handler: () => 'ok' }),
    ],
    resources: [resource({ uri: 'demo://here', name: 'here', read: () => 'here' })],
  });
}

const CASES: { version: ProtocolVersion; kinds: Kind[] }[] = [
  { version: '2026-07-28', kinds: ['v2'] },
  { version: '2025-11-25', kinds: ['v2', 'v1'] },
  { version: '2025-06-18', kinds: ['v2', 'v1'] },
  { version: '2025-03-26', kinds: ['v2', 'v1'] },
];

describe.each(CASES)('JSON-RPC errors reach the official clients on $version', ({ version, kinds }) => {
  const modern = version === '2026-07-28';
  let server: McpHttpServer;
  let slow: McpHttpServer;
  const start = (options: Partial<ListenOptions> = {}) =>
    listen({ runtime: runtimeFor(version), port: 0, ...options });

  beforeAll(async () => {
    [server, slow] = await Promise.all([
      start({ maxConcurrency: 1, maxQueue: 0 }),
      start({ requestTimeout: 50 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), slow?.close()]);
  });

  describe.each(kinds)('the %s client', (kind) => {
    it('-32602 for an unknown tool, with data', async () => {
      await withPeer(kind, server.url(), version, async (peer) => {
        expect(await failure(peer.callTool('nope'))).toEqual({
          code: -32602,
          data: { name: 'nope' },
        });
      });
    });

    it('-32603 from a handler keeps its data (a proxy backend that is down)', async () => {
      await withPeer(kind, server.url(), version, async (peer) => {
        expect(await failure(peer.callTool('broken'))).toEqual({
          code: -32603,
          data: { reason: 'backend_unavailable' },
        });
      });
    });

    it('-32000 when the executor is full (200 unless overloadRetryAfter is set)', async () => {
      const peer = await connectPeer(kind, server.url(), version);
      held = gate();
      try {
        const holding = peer.callTool('hold');
        holding.catch(() => {}); // awaited below; a failed run must not leave it unhandled
        let refused: Seen | undefined;
        // The held call takes the only slot once it reaches the server; until then echo succeeds.
        while (refused === undefined) {
          try {
            await peer.callTool('echo', { text: 'x' });
          } catch (error) {
            refused = seen(error);
          }
        }
        expect(refused.code).toBe(-32000);
        held.open();
        expect((await holding).content).toEqual([{ type: 'text', text: 'released' }]);
      } finally {
        held.open();
        await peer.close();
      }
    });

    it('-32001 past the request deadline', async () => {
      await withPeer(kind, slow.url(), version, async (peer) => {
        expect((await failure(peer.callTool('hang'))).code).toBe(-32001);
      });
    });

    it('-32021 for a tool that needs an undeclared capability, with data.requiredCapabilities', async () => {
      await withPeer(kind, server.url(), version, async (peer) => {
        const error = await failure(peer.callTool('needs-sampling'));
        expect(error.code).toBe(-32021);
        expect(error.data).toMatchObject({ requiredCapabilities: { sampling: {} } });
      });
    });

    // The wire carries -32002 before 2026-07-28; the v2 client turns it into its ResourceNotFoundError
    // (-32602, data.uri) on every revision, the 1.x client keeps -32002.
    const notFound = kind === 'v1' ? -32002 : -32602;
    it(`resource not found reaches the ${kind} client as ${notFound} with data.uri`, async () => {
      await withPeer(kind, server.url(), version, async (peer) => {
        expect(await failure(peer.readResource('demo://missing'))).toEqual({
          code: notFound,
          data: { uri: 'demo://missing' },
        });
      });
    });

    if (modern) {
      it('-32601 is 404, as the 2026-07-28 transport requires: the v2 client sees an HTTP error whose body holds the code', async () => {
        await withPeer(kind, server.url(), version, async (peer) => {
          const error = await failure(peer.request('nope/nope'));
          expect(error.httpStatus).toBe(404);
          expect(JSON.parse(error.text ?? '').error.code).toBe(-32601);
        });
      });

      it('-32020 for a header unlike the body (400), with the code', async () => {
        const mangleName = editHeaders((headers) => {
          if (headers.get('mcp-name') === 'echo') headers.set('mcp-name', 'other');
        });
        await withPeer(
          kind,
          server.url(),
          version,
          async (peer) => {
            expect((await failure(peer.callTool('echo', { text: 'x' }))).code).toBe(-32020);
          },
          mangleName,
        );
      });
    } else {
      it('-32601 for an unknown method', async () => {
        await withPeer(kind, server.url(), version, async (peer) => {
          expect((await failure(peer.request('nope/nope'))).code).toBe(-32601);
        });
      });

      it('MCP-Protocol-Version naming a revision this server does not serve is 400 (the transport spec): an HTTP error whose body holds -32022', async () => {
        // The server serves only `version`, so any other revision is unsupported here.
        const other = version === '2025-06-18' ? '2025-11-25' : '2025-06-18';
        let armed = false;
        const wrongVersion = editHeaders((headers) => {
          if (armed) headers.set('mcp-protocol-version', other);
        });
        const peer = await connectPeer(kind, server.url(), version, wrongVersion);
        armed = true;
        try {
          const error = await failure(peer.callTool('echo', { text: 'x' }));
          expect(error.httpStatus).toBe(400);
          expect(error.text).toContain('-32022');
        } finally {
          armed = false;
          await peer.close();
        }
      });

      it('a request without MCP-Protocol-Version is served at the session revision', async () => {
        const dropVersion = editHeaders((headers) => headers.delete('mcp-protocol-version'));
        await withPeer(
          kind,
          server.url(),
          version,
          async (peer) => {
            expect((await peer.callTool('echo', { text: 'hi' })).content).toEqual([
              { type: 'text', text: 'hi' },
            ]);
          },
          dropVersion,
        );
      });
    }
  });
});
