import { DEFAULT_MAX_BATCH_ITEMS, Executor, type Logger } from '@snodo/core';
import {
  COMMON_RULES,
  checkOptions,
  duration,
  enumOf,
  instance,
  type OptionSchema,
  other,
} from '@snodo/core/internal';
import { DEFAULT_MAX_LINE_BYTES, DEFAULT_WRITE_TIMEOUT } from './defaults.js';
import { optionError } from './errors.js';

export interface ServeOptions {
  /** Where messages come from, one JSON-RPC message per line. Default `process.stdin`. */
  input?: NodeJS.ReadableStream;
  /** Where messages go. Nothing else is ever written to it. Default `process.stdout`. Never ended by `serve`. */
  output?: NodeJS.WritableStream;
  /**
   * Milliseconds a write may stay blocked (output not draining) before serving ends with
   * `SNODO_ERR_WRITE_TIMEOUT`. A positive integer, or Infinity to wait forever. Default 5,000.
   */
  writeTimeout?: number;
  /** Bytes of one line, newline excluded; a longer line gets -32600 (id null) before decoding. Default 2,000,000. */
  maxLineBytes?: number;
  /**
   * Items one JSON-RPC batch (2025-03-26) may hold, notifications included; a longer batch gets one
   * -32600 line (id null, `data.maxBatchItems`) and nothing of it runs. Default 100.
   */
  maxBatchItems?: number;
  /**
   * Deadline of each request in ms, counted from when the executor admits it (a request read
   * while the executor is full first waits for room, uncounted); past it the request is aborted
   * and answered with -32001. 0 or Infinity disables it. Default: the executor's (60,000 ms).
   */
  requestTimeout?: number;
  /** Runs the requests; share one between transports to share its bounds. Default: a new `Executor`. */
  executor?: Executor;
  /** Shortcut for `new Executor({ maxConcurrency })` (not with `executor`). Default 64. */
  maxConcurrency?: number;
  /** Shortcut for `new Executor({ maxQueue })` (not with `executor`). Default 256. */
  maxQueue?: number;
  /** Aborting it stops reading and ends serving as EOF does (admitted requests finish). */
  signal?: AbortSignal;
  /**
   * While serving on `process.stdout`: `'stderr'` sends what the global console would write to
   * stdout (`console.log`, `info`, `debug`, `dir`, `dirxml`, `table`, `group`, `count`, `timeLog`,
   * `timeEnd`) to stderr until serving ends; `'keep'` leaves the console alone. With another
   * `output` the console is never touched. Default `'stderr'`.
   */
  console?: ConsoleMode;
}

export type ConsoleMode = 'stderr' | 'keep';

export interface ServeSettings {
  /** Undefined: standard input (see input.ts for how it is read). */
  readonly input: NodeJS.ReadableStream | undefined;
  readonly output: NodeJS.WritableStream;
  readonly writeTimeout: number;
  readonly maxLineBytes: number;
  readonly maxBatchItems: number;
  readonly requestTimeout: number | undefined;
  readonly executor: Executor;
  readonly signal: AbortSignal | undefined;
  /** True when serving on process.stdout with `console: 'stderr'`: the console goes to stderr meanwhile. */
  readonly redirectConsole: boolean;
}

/** What `serve` takes, with every rule. */
export const SERVE_OPTIONS: OptionSchema = Object.freeze({
  input: other('a readable stream'),
  output: other('a writable stream'),
  writeTimeout: duration(1, true),
  maxLineBytes: COMMON_RULES.maxLineBytes,
  maxBatchItems: COMMON_RULES.maxBatchItems,
  requestTimeout: COMMON_RULES.requestTimeout,
  executor: instance(Executor, 'an Executor'),
  maxConcurrency: COMMON_RULES.maxConcurrency,
  maxQueue: COMMON_RULES.maxQueue,
  signal: other('an AbortSignal'),
  console: enumOf('stderr', 'keep'),
});

/** Validates the options once; every message names the option and its rule. */
/** `logger` (the runtime's) goes to the executor `serve` makes, which logs when it refuses work. */
export function resolveOptions(options: ServeOptions, logger?: Logger): ServeSettings {
  checkOptions('serve', options, SERVE_OPTIONS);
  const { input } = options;
  if (input !== undefined && !isReadable(input)) throw invalid('input must be a readable stream');
  const output = options.output ?? process.stdout;
  if (typeof output.write !== 'function' || typeof output.on !== 'function') {
    throw invalid('output must be a writable stream');
  }
  const writeTimeout = options.writeTimeout ?? DEFAULT_WRITE_TIMEOUT;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxBatchItems = options.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS;
  const { requestTimeout } = options;
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw invalid(`signal must be an AbortSignal, got ${describe(options.signal)}`);
  }
  const consoleMode = options.console ?? 'stderr';
  let executor = options.executor;
  if (executor === undefined) {
    executor = new Executor({ maxConcurrency: options.maxConcurrency, maxQueue: options.maxQueue, logger });
  } else {
    // `instanceof` reads Executor's brand, so an executor from another loaded copy of core works.
    for (const name of ['maxConcurrency', 'maxQueue'] as const) {
      if (options[name] !== undefined)
        throw invalid(`${name} cannot be combined with executor: set it on the executor`);
    }
  }
  return {
    input,
    output,
    writeTimeout,
    maxLineBytes,
    maxBatchItems,
    requestTimeout,
    executor,
    signal: options.signal,
    redirectConsole: consoleMode === 'stderr' && output === process.stdout,
  };
}

function isReadable(value: unknown): value is NodeJS.ReadableStream {
  const stream = value as NodeJS.ReadableStream | null;
  return (
    typeof stream === 'object' &&
    stream !== null &&
    typeof stream.on === 'function' &&
    typeof stream.pause === 'function' &&
    typeof stream.resume === 'function'
  );
}

function invalid(detail: string) {
  return optionError(detail);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
