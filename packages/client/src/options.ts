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
  COMMON_RULES,
  checkOption,
  duration,
  enumOf,
  fn,
  type OptionSchema,
  option,
  other,
  positive,
} from '@snodo/core/internal';
import {
  DEFAULT_CALL_TIMEOUT,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_TASK_POLL_INTERVAL,
  DEFAULT_PROBE_TIMEOUT,
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

/** `connect(target, options)`'s options, with every rule. */
export const CONNECT_OPTIONS: OptionSchema = Object.freeze({
  clientInfo: other('{ name, version } strings'),
  protocolVersions: other('a non-empty array of revisions'),
  capabilities: other('client capabilities'),
  onElicit: fn,
  onSample: fn,
  onRoots: fn,
  onNotification: fn,
  onWarning: fn,
  onStderr: fn,
  authorization: fn,
  timeout: duration(0, true),
  probeTimeout: duration(0, true),
  maxInputRounds: COMMON_RULES.maxInputRounds,
  maxPages: positive,
  cache: other('a boolean or { maxEntries }'),
  tasks: other('a boolean or { maxPollInterval }'),
  logLevel: enumOf(...LOG_LEVELS),
  decodeLimits: other('decode limits'),
});

export function resolveSettings(options: ConnectOptions): Settings {
  if (typeof options !== 'object' || options === null) throw optionError('options must be an object');
  for (const [name, rule] of Object.entries(CONNECT_OPTIONS))
    checkOption(name, (options as unknown as Record<string, unknown>)[name], rule);
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
  const clientInfo = options.clientInfo ?? { name: '@snodo/client', version: CLIENT_VERSION };
  if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
    throw optionError('clientInfo needs a string name and version');
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
    timeout: timeout('timeout', options.timeout, DEFAULT_CALL_TIMEOUT),
    probeTimeout: timeout('probeTimeout', options.probeTimeout, DEFAULT_PROBE_TIMEOUT),
    maxInputRounds: options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
    cache: cache !== false,
    cacheEntries:
      typeof cache === 'object'
        ? option('cache.maxEntries', cache.maxEntries, positive, Number.POSITIVE_INFINITY)
        : undefined,
    logLevel: options.logLevel,
    tasks: capabilities.extensions?.[TASKS_EXTENSION] !== undefined,
    maxTaskPollInterval: option(
      'tasks.maxPollInterval',
      typeof tasks === 'object' ? tasks.maxPollInterval : undefined,
      duration(1),
      DEFAULT_MAX_TASK_POLL_INTERVAL,
    ),
  };
}

/** A deadline option: 0 and Infinity both mean none (0 inside the client). */
function timeout(name: string, value: unknown, fallback: number): number {
  const ms = option(name, value, duration(0, true), fallback);
  return ms === Number.POSITIVE_INFINITY ? 0 : ms;
}
