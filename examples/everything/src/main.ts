#!/usr/bin/env node
// The demo server's command line:
//   node dist/main.js --stdio [--max-concurrency N] [--max-queue N] [--request-timeout MS]
//                             [--write-timeout MS] [--max-line-bytes N] [--console stderr|keep] [--stats]
//                             [--tasks]
//   node dist/main.js --port N [--host H] [--max-concurrency N] [--max-queue N] [--request-timeout MS]
//                             [--redis redis://HOST:PORT] [--tasks [--task-lease-ms MS]]
// With --port it serves Streamable HTTP on http://127.0.0.1:N/mcp and prints that URL on stdout.
// With --redis it is one member of a cluster behind a load balancer: sessions, change events and
// control messages (cancels, answers, session updates, DELETE) go through that Redis, and
// SNODO_MRTR_SECRET (required then: one secret of 32 characters or more, or several
// comma-separated during a rotation, the first signing) gives the MRTR keys.
// SNODO_MRTR_SECRET is also read without --redis.
// --tasks turns on the Tasks extension (and the long_job tool, always a task); with --redis the
// tasks live in that Redis (its taskStore), so any instance reads, answers and cancels any task and
// a finished task outlives the instance that ran it; --task-lease-ms is the task manager's leaseMs
// (how soon another instance reports a task of a killed instance as failed).
// --stats prints the executor's counters as one JSON line on stderr when serving ends. --console is
// serve's `console` option: while serving, console output goes to stderr (default) or stays put.
// OTEL_TRACES_EXPORTER=console|otlp traces every request with the OpenTelemetry SDK (src/tracing.ts).
import { parseArgs } from 'node:util';
import { createTaskManager, Executor, type MrtrKey } from '@snodo/core';
import { connectRedis, type SnodoRedis } from '@snodo/redis';
import { listen } from '@snodo/transport-http';
import { type ServeOptions, serve } from '@snodo/transport-stdio';
import { mrtrKeysFromEnv } from './cluster.js';
import { createEverythingServer } from './server.js';
import { startTracing } from './tracing.js';

const USAGE =
  'usage: main.js --stdio [--max-concurrency N] [--max-queue N] [--request-timeout MS] [--write-timeout MS] [--max-line-bytes N] [--console stderr|keep] [--stats] [--tasks]\n' +
  '       main.js --port N [--host H] [--max-concurrency N] [--max-queue N] [--request-timeout MS] [--redis URL] [--tasks [--task-lease-ms MS]]';

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
    redis: { type: 'string' },
    tasks: { type: 'boolean', default: false },
    'task-lease-ms': { type: 'string' },
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

if (values.redis !== undefined && values.port === undefined) {
  console.error(`--redis needs --port: a stdio server has no one to share with\n${USAGE}`);
  process.exit(2);
}
let keys: MrtrKey[] | undefined;
if (values.redis !== undefined || process.env.SNODO_MRTR_SECRET !== undefined) {
  const parsed = mrtrKeysFromEnv(process.env.SNODO_MRTR_SECRET);
  if (typeof parsed === 'string') {
    console.error(`everything: ${parsed}`);
    process.exit(2);
  }
  keys = parsed;
}
let shared: SnodoRedis | undefined;
if (values.redis !== undefined) {
  try {
    shared = await connectRedis({ url: values.redis });
  } catch (error) {
    console.error('everything: cannot use Redis:', error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
let stopTracing: (() => Promise<void>) | undefined;
try {
  stopTracing = await startTracing(values.stdio === true);
} catch (error) {
  console.error(`everything: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
if (values['task-lease-ms'] !== undefined && !values.tasks) {
  console.error(`--task-lease-ms needs --tasks\n${USAGE}`);
  process.exit(2);
}
const leaseMs = integer('task-lease-ms');
const tasks = values.tasks
  ? createTaskManager({
      ...(shared === undefined ? {} : { store: shared.taskStore }),
      ...(leaseMs === undefined ? {} : { leaseMs }),
    })
  : undefined;
const runtime = createEverythingServer(keys === undefined ? {} : { mrtr: { keys } }, shared?.hub, tasks);

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
    async () => {
      if (values.stats) console.error(`executor stats ${JSON.stringify(executor.stats())}`);
      await stopTracing?.();
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
    ...(shared === undefined ? {} : { sessionStore: shared.sessionStore, control: shared.control }),
    executor: new Executor({
      maxConcurrency: integer('max-concurrency'),
      maxQueue: integer('max-queue'),
      requestTimeout: integer('request-timeout'),
    }),
  }).then(
    (server) => {
      console.log(server.url());
      const stop = () => {
        server
          .close()
          .then(() => tasks?.close())
          .then(() => shared?.close())
          .then(() => stopTracing?.())
          .then(() => process.exit(0));
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
