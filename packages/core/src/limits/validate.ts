import { optionError } from '../errors/table.js';
import { MAX_TIMER_DELAY } from './defaults.js';

/**
 * The rule of one option. Every entry point (listen, the Fastify plugin, serve, connect,
 * createProxy, connectRedis, core's own constructors) declares its options as a schema of these,
 * so the same option gets the same answer and the same code everywhere:
 * `SNODO_ERR_INVALID_OPTION`, "Invalid option: <name> must be <rule>, got <value>".
 */
export type OptionRule =
  /** A safe integer from `min` to `max` (default `Number.MAX_SAFE_INTEGER`). */
  | { readonly type: 'integer'; readonly min: number; readonly max?: number }
  /** Integer milliseconds from `min` to `MAX_TIMER_DELAY`; `Infinity` too when `infinity` (no deadline). */
  | { readonly type: 'duration'; readonly min: number; readonly infinity?: boolean }
  /** An absolute http: or https: URL, as the WHATWG URL parser reads it. */
  | { readonly type: 'url' }
  | { readonly type: 'enum'; readonly values: readonly string[] }
  | { readonly type: 'function' }
  /** An instance of a branded class (`instanceof` reads the brand, so another copy's is accepted). */
  | { readonly type: 'instance'; readonly of: object; readonly what: string }
  /** Checked by its entry point (objects with their own rules); `what` names what it takes. */
  | { readonly type: 'other'; readonly what: string };

/** Every option an entry point takes, with its rule. */
export type OptionSchema = Readonly<Record<string, OptionRule>>;

export const positive: OptionRule = Object.freeze({ type: 'integer', min: 1 });
export const nonNegative: OptionRule = Object.freeze({ type: 'integer', min: 0 });
export const fn: OptionRule = Object.freeze({ type: 'function' });
export const url: OptionRule = Object.freeze({ type: 'url' });

export function integer(min: number, max?: number): OptionRule {
  return Object.freeze(max === undefined ? { type: 'integer', min } : { type: 'integer', min, max });
}

export function duration(min: number, infinity = false): OptionRule {
  return Object.freeze(infinity ? { type: 'duration', min, infinity } : { type: 'duration', min });
}

export function enumOf(...values: string[]): OptionRule {
  return Object.freeze({ type: 'enum', values: Object.freeze(values) });
}

export function other(what: string): OptionRule {
  return Object.freeze({ type: 'other', what });
}

export function instance(of: object, what: string): OptionRule {
  return Object.freeze({ type: 'instance', of, what });
}

/**
 * The rule of every option more than one entry point takes, by name: an option has one rule
 * wherever it is given (a test compares every schema against this).
 */
export const COMMON_RULES = Object.freeze({
  requestTimeout: duration(0, true),
  maxConcurrency: positive,
  maxQueue: nonNegative,
  maxSubscriptions: positive,
  maxBodyBytes: positive,
  maxBatchItems: positive,
  bodyTimeout: duration(1),
  keepAliveInterval: duration(1),
  publicUrl: url,
  maxSessions: positive,
  sessionIdleTimeout: duration(0),
  maxInputRounds: positive,
  pageSize: positive,
  maxDrainBytes: positive,
  drainTimeout: duration(1),
  maxLineBytes: positive,
  maxMessageBytes: positive,
  logger: other('a pino-compatible logger (info, warn and error methods)'),
} satisfies Record<string, OptionRule>);

/** What `rule` asks for, as the message says it. */
export function describeRule(rule: OptionRule): string {
  switch (rule.type) {
    case 'integer':
      if (rule.max !== undefined) return `an integer from ${rule.min} to ${rule.max}`;
      return rule.min === 1
        ? 'a positive integer'
        : rule.min === 0
          ? 'a non-negative integer'
          : `an integer of at least ${rule.min}`;
    case 'duration':
      return `an integer number of milliseconds from ${rule.min} to ${MAX_TIMER_DELAY}${rule.infinity ? ', or Infinity for none' : ''}`;
    case 'url':
      return 'an absolute http(s) URL';
    case 'enum':
      return `one of ${rule.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'function':
      return 'a function';
    case 'instance':
    case 'other':
      return rule.what;
  }
}

/** Whether `value` keeps `rule` (an `other` rule is its entry point's to check: always true here). */
export function keeps(rule: OptionRule, value: unknown): boolean {
  switch (rule.type) {
    case 'integer':
      return (
        typeof value === 'number' &&
        Number.isSafeInteger(value) &&
        value >= rule.min &&
        value <= (rule.max ?? Number.MAX_SAFE_INTEGER)
      );
    case 'duration':
      if (value === Number.POSITIVE_INFINITY) return rule.infinity === true;
      return (
        typeof value === 'number' &&
        Number.isSafeInteger(value) &&
        value >= rule.min &&
        value <= MAX_TIMER_DELAY
      );
    case 'url':
      return isHttpUrl(value);
    case 'enum':
      return typeof value === 'string' && rule.values.includes(value);
    case 'function':
      return typeof value === 'function';
    case 'instance':
      return typeof value === 'object' && value !== null && value instanceof (rule.of as new () => object);
    case 'other':
      return true;
  }
}

/** Throws `SNODO_ERR_INVALID_OPTION` naming the option and its rule unless `value` is undefined or keeps it. */
export function checkOption(name: string, value: unknown, rule: OptionRule): void {
  if (value !== undefined && !keeps(rule, value))
    throw optionError(`${name} must be ${describeRule(rule)}, got ${describeValue(value)}`);
}

/** `value` once checked against `rule`, or `fallback` when undefined. */
export function option<T>(name: string, value: unknown, rule: OptionRule, fallback: T): T {
  checkOption(name, value, rule);
  return value === undefined ? fallback : (value as T);
}

/**
 * Checks an entry point's options against its schema: an object, no name outside the schema (the
 * message lists every name it knows), and each given value by its rule.
 */
export function checkOptions(what: string, options: unknown, schema: OptionSchema): void {
  if (typeof options !== 'object' || options === null)
    throw optionError(`${what} needs an options object, got ${describeValue(options)}`);
  knownOptions(what, options, Object.keys(schema));
  for (const [name, rule] of Object.entries(schema))
    checkOption(name, (options as Record<string, unknown>)[name], rule);
}

export function positiveInteger(name: string, value: unknown, fallback: number): number {
  return option(name, value, positive, fallback);
}

export function nonNegativeInteger(name: string, value: unknown, fallback: number): number {
  return option(name, value, nonNegative, fallback);
}

/** Refuses a key that is not an option; the message lists every option `what` knows. */
export function knownOptions(what: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key))
      throw optionError(`unknown ${what} option "${key}"; known: ${known.join(', ')}`);
  }
}

/** An absolute http: or https: URL, as `publicUrl` options must be. */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
