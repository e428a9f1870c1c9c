import {
  type ClientCapabilities,
  type Implementation,
  isKnownVersion,
  LOG_LEVELS,
  type LogLevel,
  type ProtocolVersion,
  SUPPORTED_VERSIONS,
  TASKS_EXTENSION,
} from '@snodo/core';
import {
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_TASK_POLL_INTERVAL,
  DEFAULT_PROBE_TIMEOUT,
  DEFAULT_REQUEST_TIMEOUT,
  MAX_TIMEOUT,
} from './defaults.js';
import { optionError } from './errors.js';
import type { ConnectOptions } from './types.js';
import { CLIENT_VERSION } from './version.js';

/** Options validated once, by `connect`; every message names the option and its rule. */
export interface Settings {
  readonly clientInfo: Implementation;
  readonly protocolVersions: readonly ProtocolVersion[];
  readonly capabilities: ClientCapabilities;
  readonly onElicit: ConnectOptions['onElicit'];
  readonly onSample: ConnectOptions['onSample'];
  readonly onRoots: ConnectOptions['onRoots'];
  readonly onNotification: ConnectOptions['onNotification'];
  readonly onWarning: ConnectOptions['onWarning'];
  readonly timeout: number;
  readonly probeTimeout: number;
  readonly maxInputRounds: number;
  readonly maxPages: number;
  readonly cache: boolean;
  readonly cacheEntries: number | undefined;
  readonly logLevel: LogLevel | undefined;
  /** The Tasks extension is declared (by `tasks` or in `capabilities.extensions`). */
  readonly tasks: boolean;
  readonly maxTaskPollInterval: number;
}

export function resolveSettings(options: ConnectOptions): Settings {
  if (typeof options !== 'object' || options === null) throw optionError('options must be an object');
  const versions = options.protocolVersions ?? SUPPORTED_VERSIONS;
  if (!Array.isArray(versions) || versions.length === 0) {
    throw optionError('protocolVersions must be a non-empty array of revisions');
  }
  for (const version of versions) {
    if (typeof version !== 'string' || !isKnownVersion(version)) {
      throw optionError(
        `protocolVersions: ${JSON.stringify(version)} is not a revision this client speaks (${SUPPORTED_VERSIONS.join(', ')})`,
      );
    }
  }
  for (const name of [
    'onElicit',
    'onSample',
    'onRoots',
    'onNotification',
    'onWarning',
    'onStderr',
    'authorization',
  ] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw optionError(`${name} must be a function`);
    }
  }
  const clientInfo = options.clientInfo ?? { name: '@snodo/client', version: CLIENT_VERSION };
  if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
    throw optionError('clientInfo needs a string name and version');
  }
  if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
    throw optionError(`logLevel must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const capabilities: ClientCapabilities = { ...options.capabilities };
  if (options.onElicit) capabilities.elicitation ??= {};
  if (options.onSample) capabilities.sampling ??= {};
  if (options.onRoots) capabilities.roots ??= {};
  const tasks = options.tasks ?? false;
  if (typeof tasks !== 'boolean' && (typeof tasks !== 'object' || tasks === null)) {
    throw optionError('tasks must be a boolean or { maxPollInterval }');
  }
  if (tasks !== false) capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} };
  const cache = options.cache ?? true;
  return {
    clientInfo,
    protocolVersions: [...new Set(versions)] as ProtocolVersion[],
    capabilities,
    onElicit: options.onElicit,
    onSample: options.onSample,
    onRoots: options.onRoots,
    onNotification: options.onNotification,
    onWarning: options.onWarning,
    timeout: timeout('timeout', options.timeout, DEFAULT_REQUEST_TIMEOUT),
    probeTimeout: timeout('probeTimeout', options.probeTimeout, DEFAULT_PROBE_TIMEOUT),
    maxInputRounds: positive('maxInputRounds', options.maxInputRounds, DEFAULT_MAX_INPUT_ROUNDS),
    maxPages: positive('maxPages', options.maxPages, DEFAULT_MAX_PAGES),
    cache: cache !== false,
    cacheEntries:
      typeof cache === 'object'
        ? positive('cache.maxEntries', cache.maxEntries, Number.POSITIVE_INFINITY)
        : undefined,
    logLevel: options.logLevel,
    tasks: capabilities.extensions?.[TASKS_EXTENSION] !== undefined,
    maxTaskPollInterval: positive(
      'tasks.maxPollInterval',
      typeof tasks === 'object' ? tasks.maxPollInterval : undefined,
      DEFAULT_MAX_TASK_POLL_INTERVAL,
    ),
  };
}

function timeout(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (value === 0 || value === Number.POSITIVE_INFINITY) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_TIMEOUT) {
    throw optionError(
      `${name} must be an integer number of ms from 1 to ${MAX_TIMEOUT}, or 0/Infinity for none`,
    );
  }
  return value;
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw optionError(`${name} must be a positive integer`);
  }
  return value;
}
