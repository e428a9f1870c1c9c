#!/usr/bin/env node
// The demo server's command line:
//   node dist/main.js --stdio [--max-concurrency N] [--max-queue N] [--request-timeout MS]
//                             [--write-timeout MS] [--max-line-bytes N] [--console stderr|keep] [--stats]
//   node dist/main.js --port N [--host H] [--max-concurrency N] [--max-queue N] [--request-timeout MS]
// With --port it serves Streamable HTTP on http://127.0.0.1:N/mcp and prints that URL on stdout.
// --stats prints the executor's counters as one JSON line on stderr when serving ends. --console is
// serve's `console` option: while serving, console output goes to stderr (default) or stays put.
import { parseArgs } from 'node:util';
import { Executor } from '@snodo/core';
import { listen } from '@snodo/transport-http';
import { type ServeOptions, serve } from '@snodo/transport-stdio';
import { createEverythingServer } from './server.js';

const USAGE =
  'usage: main.js --stdio [--max-concurrency N] [--max-queue N] [--request-timeout MS] [--write-timeout MS] [--max-line-bytes N] [--console stderr|keep] [--stats]\n' +
  '       main.js --port N [--host H] [--max-concurrency N] [--max-queue N] [--request-timeout MS]';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    port: { type: 'string' },
    host: { type: 'string' },
    'max-concurrency': { type: 'string' },
    'max-queue': { type: 'string' },
    'request-timeout': { type: 'string' },
    'write-timeout': { type: 'string' },
    'max-line-bytes': { type: 'string' },
    console: { type: 'string' },
    stats: { type: 'boolean', default: false },
  },
  strict: true,
});

function integer(name: keyof typeof values): number | undefined {
  const text = values[name];
  if (text === undefined || typeof text !== 'string') return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    console.error(`--${name} must be an integer, got ${JSON.stringify(text)}\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

const runtime = createEverythingServer();

if (values.stdio) {
  const executor = new Executor({
    maxConcurrency: integer('max-concurrency'),
    maxQueue: integer('max-queue'),
    requestTimeout: integer('request-timeout'),
  });
  serve(runtime, {
    executor,
    writeTimeout: integer('write-timeout'),
    maxLineBytes: integer('max-line-bytes'),
    // serve refuses anything but 'stderr' and 'keep' (SNODO_ERR_INVALID_OPTION).
    console: values.console as ServeOptions['console'],
  }).then(
    () => {
      if (values.stats) console.error(`executor stats ${JSON.stringify(executor.stats())}`);
    },
    (error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      const message = error instanceof Error ? error.message : String(error);
      console.error(
        `everything: stdio serving failed: ${typeof code === 'string' ? `${code}: ` : ''}${message}`,
      );
      if (values.stats) console.error(`executor stats ${JSON.stringify(executor.stats())}`);
      // Output that cannot drain would keep the process alive: exit now.
      process.exit(1);
    },
  );
} else if (values.port !== undefined) {
  const port = integer('port') as number;
  listen({
    runtime,
    port,
    ...(values.host === undefined ? {} : { host: values.host }),
    executor: new Executor({
      maxConcurrency: integer('max-concurrency'),
      maxQueue: integer('max-queue'),
      requestTimeout: integer('request-timeout'),
    }),
  }).then(
    (server) => {
      console.log(server.url());
      const stop = () => {
        server.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      console.error('everything: cannot listen:', error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
} else {
  console.error(USAGE);
  process.exit(2);
}
