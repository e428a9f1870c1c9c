#!/usr/bin/env node
// The demo server's command line:
//   node dist/main.js --stdio [--max-concurrency N] [--max-queue N] [--request-timeout MS]
//                             [--write-timeout MS] [--max-line-bytes N] [--stats]
// --stats prints the executor's counters as one JSON line on stderr when serving ends.
import { parseArgs } from 'node:util';
import { Executor } from '@snodo/core';
import { serve } from '@snodo/transport-stdio';
import { createEverythingServer } from './server.js';

const USAGE =
  'usage: main.js --stdio [--max-concurrency N] [--max-queue N] [--request-timeout MS] [--write-timeout MS] [--max-line-bytes N] [--stats]';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    // HTTP: `--port N` is added with the HTTP transport; parse it here and serve it below.
    'max-concurrency': { type: 'string' },
    'max-queue': { type: 'string' },
    'request-timeout': { type: 'string' },
    'write-timeout': { type: 'string' },
    'max-line-bytes': { type: 'string' },
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
  // stdout carries protocol messages only: anything the application logs goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const executor = new Executor({
    maxConcurrency: integer('max-concurrency'),
    maxQueue: integer('max-queue'),
    requestTimeout: integer('request-timeout'),
  });
  serve(runtime, {
    executor,
    writeTimeout: integer('write-timeout'),
    maxLineBytes: integer('max-line-bytes'),
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
} else {
  console.error(USAGE);
  process.exit(2);
}
