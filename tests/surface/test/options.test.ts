import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createFetchHandler, createHttpHandler, Executor, resolveHttpOptions, SnodoError } from '@snodo/core';
import { snodo } from '@snodo/fastify';
import { listen } from '@snodo/transport-http';
import { serve } from '@snodo/transport-stdio';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { CONNECT_OPTIONS } from '../../../packages/client/src/options.js';
import { EXECUTOR_OPTIONS } from '../../../packages/core/src/executor/executor.js';
import { HTTP_OPTIONS } from '../../../packages/core/src/http/config.js';
import { HTTP_HANDLER_OPTIONS } from '../../../packages/core/src/http/handler.js';
import { COMMON_RULES, type OptionSchema } from '../../../packages/core/src/limits/validate.js';
import { PLUGIN_OPTIONS } from '../../../packages/fastify/src/options.js';
import { PROXY_OPTIONS } from '../../../packages/proxy/src/options.js';
import { REDIS_OPTIONS } from '../../../packages/redis/src/options.js';
import { LISTEN_OPTIONS } from '../../../packages/transport-http/src/options.js';
import { SERVE_OPTIONS } from '../../../packages/transport-stdio/src/options.js';
import { echoServer, packageDir } from './helpers.js';

type Answer = 'accepted' | { code: string; message: string };

async function answer(run: () => unknown): Promise<Answer> {
  try {
    await run();
    return 'accepted';
  } catch (error) {
    if (!SnodoError.is(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

/** Every entry point that takes these options, each run once with them. */
const ENTRY_POINTS: Record<string, (options: Record<string, unknown>) => Promise<Answer>> = {
  'new Executor': (options) => answer(() => new Executor(options)),
  resolveHttpOptions: (options) => answer(() => resolveHttpOptions(options)),
  createHttpHandler: (options) => answer(() => createHttpHandler(echoServer(), options).close()),
  createFetchHandler: (options) => answer(() => createFetchHandler(echoServer(), options)),
  listen: (options) =>
    answer(async () => {
      const server = await listen({ runtime: echoServer(), port: 0, ...options });
      await server.close();
    }),
  '@snodo/fastify': (options) =>
    answer(async () => {
      const app = Fastify();
      app.register(snodo, { runtime: echoServer(), ...options });
      try {
        await app.ready();
      } finally {
        await app.close();
      }
    }),
  serve: (options) =>
    answer(async () => {
      const input = new PassThrough();
      input.end();
      await serve(echoServer(), { input, output: new PassThrough(), ...options });
    }),
};

async function answers(names: string[], options: Record<string, unknown>): Promise<Record<string, Answer>> {
  const result: Record<string, Answer> = {};
  for (const name of names) result[name] = await ENTRY_POINTS[name]!(options);
  return result;
}

function same(names: string[], expected: Answer): Record<string, Answer> {
  return Object.fromEntries(names.map((name) => [name, expected]));
}

describe('the same option gets the same answer and code everywhere', () => {
  const executorTakers = [
    'new Executor',
    'resolveHttpOptions',
    'createHttpHandler',
    'createFetchHandler',
    'listen',
    '@snodo/fastify',
    'serve',
  ];

  it('requestTimeout: Infinity (no deadline) is accepted by every entry point', async () => {
    expect(await answers(executorTakers, { requestTimeout: Number.POSITIVE_INFINITY })).toEqual(
      same(executorTakers, 'accepted'),
    );
  });

  it('maxQueue: -1 is SNODO_ERR_INVALID_OPTION with one message everywhere', async () => {
    expect(await answers(executorTakers, { maxQueue: -1 })).toEqual(
      same(executorTakers, {
        code: 'SNODO_ERR_INVALID_OPTION',
        message: 'Invalid option: maxQueue must be a non-negative integer, got -1',
      }),
    );
  });

  it("publicUrl: 'http://bad host/mcp' is refused by every host that takes a publicUrl", async () => {
    const hosts = ['createHttpHandler', 'createFetchHandler', 'listen', '@snodo/fastify'];
    expect(await answers(hosts, { publicUrl: 'http://bad host/mcp' })).toEqual(
      same(hosts, {
        code: 'SNODO_ERR_INVALID_OPTION',
        message: 'Invalid option: publicUrl must be an absolute http(s) URL, got "http://bad host/mcp"',
      }),
    );
  });

  it('bodyTimeout: 0 is refused by every host that reads bodies; 1 is taken', async () => {
    const hosts = ['createHttpHandler', 'createFetchHandler', 'listen', '@snodo/fastify'];
    expect(await answers(hosts, { bodyTimeout: 0 })).toEqual(
      same(hosts, {
        code: 'SNODO_ERR_INVALID_OPTION',
        message:
          'Invalid option: bodyTimeout must be an integer number of milliseconds from 1 to 2147483647, got 0',
      }),
    );
    expect(await answers(hosts, { bodyTimeout: 1 })).toEqual(same(hosts, 'accepted'));
  });
});

const SCHEMAS: Record<string, OptionSchema> = {
  'new Executor': EXECUTOR_OPTIONS,
  resolveHttpOptions: HTTP_OPTIONS,
  createHttpHandler: HTTP_HANDLER_OPTIONS,
  createFetchHandler: HTTP_HANDLER_OPTIONS,
  listen: LISTEN_OPTIONS,
  '@snodo/fastify': PLUGIN_OPTIONS,
  serve: SERVE_OPTIONS,
  connect: CONNECT_OPTIONS,
  createProxy: PROXY_OPTIONS,
  connectRedis: REDIS_OPTIONS,
};

const REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers'];

/**
 * Option names that mean two things in two packages, listed so that a new one fails: renaming
 * them breaks users, and each is clear where it is given.
 */
const KNOWN_CLASHES: Record<string, string> = {
  authorization:
    "connect: a function giving the HTTP Authorization header; createProxy: the proxy's authorization policy",
};

/** A rule as data: an `instance` rule's class is compared by the name it gives (two builds of one class). */
function comparable(rule: unknown): unknown {
  const { of: _class, ...rest } = rule as { of?: unknown };
  return rest;
}

describe("the validator's schemas", () => {
  it('give an option the same rule in every schema that has it, and the common rule where there is one', () => {
    const seen = new Map<string, { where: string; rule: unknown }>();
    for (const [where, schema] of Object.entries(SCHEMAS)) {
      for (const [name, rule] of Object.entries(schema)) {
        // Fastify's own register options (its `logLevel` is Fastify's, not the MCP one) are not ours.
        if (where === '@snodo/fastify' && REGISTER_OPTIONS.includes(name)) continue;
        if (name in KNOWN_CLASHES) continue;
        const common = (COMMON_RULES as Record<string, unknown>)[name];
        if (common !== undefined) expect(rule, `${where}: ${name}`).toEqual(common);
        const first = seen.get(name);
        if (first === undefined) seen.set(name, { where, rule: comparable(rule) });
        else expect(comparable(rule), `${name}: ${where} vs ${first.where}`).toEqual(first.rule);
      }
    }
  });

  it('every "unknown option" error lists exactly the names of the schema', async () => {
    const unknown = { bogus: 1 };
    const runs: [string, Promise<Answer>][] = [
      ['new Executor', ENTRY_POINTS['new Executor']!(unknown)],
      ['resolveHttpOptions', ENTRY_POINTS.resolveHttpOptions!(unknown)],
      ['createHttpHandler', ENTRY_POINTS.createHttpHandler!(unknown)],
      ['createFetchHandler', ENTRY_POINTS.createFetchHandler!(unknown)],
      ['listen', ENTRY_POINTS.listen!(unknown)],
      ['@snodo/fastify', ENTRY_POINTS['@snodo/fastify']!(unknown)],
      ['serve', ENTRY_POINTS.serve!(unknown)],
    ];
    for (const [where, run] of runs) {
      const result = await run;
      expect(result, where).not.toBe('accepted');
      const { code, message } = result as { code: string; message: string };
      expect(code).toBe('SNODO_ERR_INVALID_OPTION');
      expect(message, where).toMatch(/^Invalid option: unknown .+ option "bogus"; known: /);
      const known = message.slice(message.indexOf('known: ') + 'known: '.length).split(', ');
      expect(new Set(known), where).toEqual(new Set(Object.keys(SCHEMAS[where]!)));
    }
  });
});

/** The option names of the first table of a README section (`## heading`), or of the table naming `marker`. */
function readmeOptions(
  pkg: string,
  heading: string,
  marker?: string,
): { plain: string[]; prefixed: string[] } {
  const readme = readFileSync(join(packageDir(pkg), 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `${pkg} README: ## ${heading}`).toBeGreaterThanOrEqual(0);
  const lines = readme.slice(start).split('\n').slice(2);
  let from = lines.findIndex(
    (line) => line.startsWith('| ') && (marker === undefined || line.includes(marker)),
  );
  while (from > 0 && lines[from - 1]!.startsWith('|')) from--;
  const table: string[] = [];
  for (const line of lines.slice(from)) {
    if (!line.startsWith('|')) break;
    table.push(line);
  }
  const plain: string[] = [];
  const prefixed: string[] = [];
  for (const row of table.slice(2)) {
    const cell = row.split('|')[1]!.trim();
    const names = [...cell.matchAll(/`([A-Za-z]+)(?:\([^`]*\))?`/g)].map((match) => match[1]!);
    (/^(HTTP|stdio):/.test(cell) ? prefixed : plain).push(...names);
  }
  return { plain, prefixed };
}

describe("each README's options table is the validator's schema", () => {
  const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

  it('@snodo/transport-http: listen()', () => {
    expect(sorted(readmeOptions('transport-http', 'Options').plain)).toEqual(
      sorted(Object.keys(LISTEN_OPTIONS)),
    );
  });

  it("@snodo/fastify: the plugin (Fastify's own register options aside)", () => {
    const own = Object.keys(PLUGIN_OPTIONS).filter(
      (name) => !['prefix', 'logLevel', 'logSerializers'].includes(name),
    );
    expect(sorted(readmeOptions('fastify', 'Options').plain)).toEqual(sorted(own));
  });

  it('@snodo/transport-stdio: serve()', () => {
    expect(sorted(readmeOptions('transport-stdio', 'Options').plain)).toEqual(
      sorted(Object.keys(SERVE_OPTIONS)),
    );
  });

  it("@snodo/client: connect() (the transports' rows aside)", () => {
    const { plain, prefixed } = readmeOptions('client', 'Options');
    const schema = Object.keys(CONNECT_OPTIONS);
    expect(sorted(plain.filter((name) => !schema.includes(name)))).toEqual([]);
    expect(sorted(schema.filter((name) => !plain.includes(name) && !prefixed.includes(name)))).toEqual([]);
  });

  it('@snodo/proxy: createProxy()', () => {
    expect(sorted(readmeOptions('proxy', 'The library', '`maxBackends`').plain)).toEqual(
      sorted(Object.keys(PROXY_OPTIONS)),
    );
  });

  it('@snodo/redis: connectRedis()', () => {
    expect(sorted(readmeOptions('redis', 'Options').plain)).toEqual(sorted(Object.keys(REDIS_OPTIONS)));
  });
});
