import { type AuthInfo, createServer, Executor } from '@snodo/core';
import Fastify, { type FastifyRequest } from 'fastify';
import { describe, expectTypeOf, it } from 'vitest';
import { type McpAuth, type SnodoFastifyOptions, snodo } from '../src/index.js';

const runtime = createServer({ name: 't', version: '1' });
const app = Fastify();

describe('register options are checked at compile time', () => {
  it('accepts the documented options, with or without a register prefix', () => {
    app.register(snodo, { runtime });
    app.register(snodo, {
      runtime,
      path: '/mcp',
      prefix: '/api',
      executor: new Executor(),
      maxBodyBytes: 2_000_000,
      bodyTimeout: 10_000,
      requestTimeout: 30_000,
      allowedOriginHosts: ['app.example.com'],
      allowedOrigins: ['https://app.example.com'],
      allowedHosts: ['app.example.com'],
      keepAliveInterval: 15_000,
      maxDrainBytes: 8_388_608,
      drainTimeout: 5_000,
    });
    app.register(snodo, { runtime, allowedOrigins: (origin) => origin.endsWith('.example.com') });
    expectTypeOf<SnodoFastifyOptions['runtime']>().toEqualTypeOf<ReturnType<typeof createServer>>();
    expectTypeOf<SnodoFastifyOptions['bodyTimeout']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<SnodoFastifyOptions['path']>().toEqualTypeOf<string | undefined>();
  });

  it('refuses a missing runtime, a misspelt option and wrong value types', () => {
    // @ts-expect-error runtime is required
    app.register(snodo, { path: '/mcp' });
    // @ts-expect-error so the options are too
    app.register(snodo);
    // @ts-expect-error the plugin has no option named maxBodySize
    app.register(snodo, { runtime, maxBodySize: 10 });
    // @ts-expect-error bodyTimeout is a number of milliseconds
    app.register(snodo, { runtime, bodyTimeout: '10s' });
    // @ts-expect-error allowedHosts is a list of host names
    app.register(snodo, { runtime, allowedHosts: 'app.example.com' });
    // @ts-expect-error allowedOrigins is a list of origins or a predicate, not one origin
    app.register(snodo, { runtime, allowedOrigins: 'https://app.example.com' });
    // @ts-expect-error a predicate answers with a boolean
    app.register(snodo, { runtime, allowedOrigins: (origin: string) => origin });
    // @ts-expect-error maxDrainBytes is a number of bytes
    app.register(snodo, { runtime, maxDrainBytes: '8 MiB' });
    // @ts-expect-error a runtime is what createServer returns, not its definition
    app.register(snodo, { runtime: { name: 't', version: '1' } });
  });
});

describe('request.mcpAuth and request.mcpCancellationScope', () => {
  it('are typed on every FastifyRequest by declaration merging', () => {
    expectTypeOf<FastifyRequest['mcpAuth']>().toEqualTypeOf<McpAuth | undefined>();
    expectTypeOf<FastifyRequest['mcpCancellationScope']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<McpAuth>().toMatchTypeOf<AuthInfo>();
    expectTypeOf<McpAuth['principal']>().toEqualTypeOf<string | undefined>();
  });

  it('refuse a principal that is not a string', () => {
    app.addHook('onRequest', async (request) => {
      request.mcpAuth = { principal: 'alice', scopes: ['mcp'] };
      request.mcpCancellationScope = 'client-1';
      // @ts-expect-error a principal is a string
      request.mcpAuth = { principal: 42 };
      // @ts-expect-error a cancellation scope is a string
      request.mcpCancellationScope = 7;
    });
  });
});
