import { PassThrough } from 'node:stream';
import { TimeoutError, TransportError } from '@snodo/client';
import {
  ClientRequestError,
  createFetchHandler,
  Executor,
  ExecutorError,
  ProtocolError,
  resolveHttpOptions,
  SnodoError,
  UriTemplateError,
} from '@snodo/core';
import { snodo } from '@snodo/fastify';
import { ProxyError } from '@snodo/proxy';
import { RedisError } from '@snodo/redis';
import { listen } from '@snodo/transport-http';
import { serve } from '@snodo/transport-stdio';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoServer, modernRequest, secondCore } from './helpers.js';

// Two copies of @snodo/core loaded side by side (a proxy and a client installed with their own,
// say): errors and executors made by one are what the other expects.
let other: typeof import('@snodo/core');
let remove: () => void;

beforeAll(async () => {
  ({ core: other, remove } = await secondCore());
  expect(other.SnodoError).not.toBe(SnodoError);
  expect(other.Executor).not.toBe(Executor);
});

afterAll(() => remove());

describe('every error class is recognised across copies', () => {
  it("core's classes, both ways, with instanceof and is()", () => {
    const pairs: [unknown, unknown, { name: string }][] = [
      [new other.SnodoError('SNODO_ERR_X', 'x'), new SnodoError('SNODO_ERR_X', 'x'), SnodoError],
      [new other.ProtocolError(-32602, 'x'), new ProtocolError(-32602, 'x'), ProtocolError],
      [new other.ClientRequestError(-1, 'x'), new ClientRequestError(-1, 'x'), ClientRequestError],
      [
        new other.ExecutorError('SNODO_ERR_OVERLOADED'),
        new ExecutorError('SNODO_ERR_OVERLOADED'),
        ExecutorError,
      ],
      [new other.UriTemplateError('{', 'x'), new UriTemplateError('{', 'x'), UriTemplateError],
    ];
    for (const [foreign, own, cls] of pairs) {
      const here = cls as unknown as { new (): unknown; is(value: unknown): boolean };
      const there = (other as unknown as Record<string, typeof here>)[cls.name]!;
      expect(foreign instanceof here, `${cls.name} from the other copy`).toBe(true);
      expect(here.is(foreign), `${cls.name}.is`).toBe(true);
      expect(own instanceof there, `${cls.name} into the other copy`).toBe(true);
      expect(there.is(own)).toBe(true);
    }
    // Subclasses stay themselves: a foreign executor refusal is a SnodoError, a plain one is no ExecutorError.
    expect(new other.ExecutorError('SNODO_ERR_CANCELLED') instanceof SnodoError).toBe(true);
    expect(new other.SnodoError('SNODO_ERR_X', 'x') instanceof ExecutorError).toBe(false);
    expect(new other.ProtocolError(-1, 'x') instanceof SnodoError).toBe(false);
  });

  it("the packages' own error classes are the other copy's SnodoError too", () => {
    const errors = [
      new TransportError('SNODO_ERR_HTTP_STATUS', 'x'),
      new TimeoutError('late', 5),
      new ProxyError('SNODO_ERR_PROXY_CLOSED', 'x'),
      new RedisError('SNODO_ERR_REDIS_CLOSED', 'x'),
    ];
    for (const error of errors) {
      expect(error instanceof other.SnodoError, error.name).toBe(true);
      expect(other.SnodoError.is(error)).toBe(true);
    }
  });
});

describe('every package accepts an Executor from the other copy', () => {
  it('core: resolveHttpOptions and createFetchHandler', () => {
    const executor = new other.Executor();
    expect(executor instanceof Executor).toBe(true);
    expect(resolveHttpOptions({ executor }).executor).toBe(executor);
    expect(typeof createFetchHandler(echoServer(), { executor })).toBe('function');
  });

  it('@snodo/transport-http: listen() serves through it', async () => {
    const executor = new other.Executor();
    const server = await listen({ runtime: echoServer(), port: 0, executor });
    try {
      const response = await fetch(server.url(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'echo',
        },
        body: modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"hi"');
      expect(executor.stats().completed).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('@snodo/fastify: the plugin registers with it', async () => {
    const executor = new other.Executor();
    const app = Fastify();
    app.register(snodo, { runtime: echoServer(), executor });
    await app.ready();
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      payload: modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
    });
    expect(response.statusCode).toBe(200);
    expect(executor.stats().completed).toBe(1);
    await app.close();
  });

  it('@snodo/transport-stdio: serve() runs through it', async () => {
    const executor = new other.Executor();
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    const served = serve(echoServer(), { input, output, executor });
    input.end(`${modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })}\n`);
    await served;
    expect(written).toContain('"hi"');
    expect(executor.stats().completed).toBe(1);
  });
});
