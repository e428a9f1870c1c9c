import { type Logger, MAX_TIMER_DELAY, TaskManager } from '@snodo/core';
import {
  COMMON_RULES,
  checkOption,
  checkOptions,
  describeRule,
  duration,
  fn,
  instance,
  loggerProblem,
  type OptionSchema,
  other,
  positive,
} from '@snodo/core/internal';
import type { BackendSpec, BackendStatus } from './backend.js';
import {
  BACKEND_ID,
  DEFAULT_BACKEND_SESSION_IDLE_MS,
  DEFAULT_HEALTH_INTERVAL_MS,
  DEFAULT_INPUT_TIMEOUT_MS,
  DEFAULT_MAX_BACKEND_SESSIONS,
  DEFAULT_MAX_BACKENDS,
  DEFAULT_MAX_CATALOG_ITEMS,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_PARKED_CALLS,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RECONNECT_DELAY_MS,
  DEFAULT_SEPARATOR,
  MAX_BACKEND_ID_LENGTH,
} from './defaults.js';
import { optionError } from './errors.js';
import { type AuthorizationPolicy, policyProblem } from './policy.js';
import type { SessionChange } from './sessions.js';
import { targetProblem } from './transport.js';

/** A backend's health changed (`onHealthChange`, and what `snodo-proxy` logs). */
export interface HealthChange {
  readonly backend: string;
  readonly status: BackendStatus;
  readonly previous: BackendStatus;
  readonly error: string | undefined;
}

export interface ProxyOptions {
  /** Backends to start with; each is connected by `createProxy` (one that fails starts `down` and is retried). */
  backends?: BackendSpec[];
  /** Default 32. */
  maxBackends?: number;
  /** Tools + prompts + resources + templates of all backends. Default 1,000. */
  maxCatalogItems?: number;
  /** Health probe (a catalog refresh of every connected backend), in ms. Default 30,000. */
  healthIntervalMs?: number;
  /** Between attempts to reconnect a disconnected backend, in ms. Default 1,000. */
  reconnectDelayMs?: number;
  /** Between prefix and name. Default '.'. */
  separator?: string;
  /** The default policy of every runtime (`proxy.runtime({ authorization })` overrides it). */
  authorization?: AuthorizationPolicy;
  /** Items per merged list page. Default 100. */
  pageSize?: number;
  /** How long a call to an initialize-based backend waits for a 2026-07-28 frontend's input answer, in ms. Default 120,000. */
  inputTimeoutMs?: number;
  /** Such waiting calls at most. Default 256. */
  maxParkedCalls?: number;
  /** Sessions each backend holds for its principals at most (a backend's `maxSessions` overrides it). Default 16. */
  maxBackendSessions?: number;
  /** How long a principal's backend session stays open unused, in ms. Default 300,000. */
  backendSessionIdleMs?: number;
  /** Input rounds one forwarded request may take. Default 8. */
  maxInputRounds?: number;
  /**
   * The proxy's own tasks (a frontend that declared the Tasks extension, a backend call still
   * running after `taskAfterMs`) run under this manager: its store (in memory, or `@snodo/redis`'s
   * `taskStore` to share tasks between proxies), `maxRunningTasks`, `taskTimeout`, `resultTtlMs`,
   * `pollIntervalMs`. Default `createTaskManager()`. `close()` closes it.
   */
  taskManager?: TaskManager;
  /**
   * ms a backend's tool call runs before the proxy answers a frontend that declared the Tasks
   * extension with a task of its own (a backend's `taskAfterMs` overrides it). Default the task
   * manager's `taskAfterMs` (1,000); `false`: never.
   */
  taskAfterMs?: number | false;
  onHealthChange?: (change: HealthChange) => void;
  /**
   * A pino-compatible logger: backend health changes (`info` when up, `warn` otherwise), and, through
   * the frontend runtime, what core logs (handler errors, refusals under load, the listener's
   * listening/closing).
   */
  logger?: Logger;
  /** What backend clients recovered from (dropped tools, skipped output). */
  onWarning?: (backend: string, message: string) => void;
  /** A principal's backend session opened or closed (and why); it names no principal. */
  onSessionChange?: (change: SessionChange) => void;
}

export interface Settings {
  readonly maxBackends: number;
  readonly maxCatalogItems: number;
  readonly healthIntervalMs: number;
  readonly reconnectDelayMs: number;
  readonly separator: string;
  readonly authorization: AuthorizationPolicy | undefined;
  readonly pageSize: number;
  readonly inputTimeoutMs: number;
  readonly maxParkedCalls: number;
  readonly maxInputRounds: number;
  readonly maxBackendSessions: number;
  readonly backendSessionIdleMs: number;
  readonly tasks: TaskManager;
  readonly taskAfterMs: number | false;
  readonly onHealthChange: ProxyOptions['onHealthChange'];
  readonly logger: Logger | undefined;
  readonly onWarning: ProxyOptions['onWarning'];
  readonly onSessionChange: ProxyOptions['onSessionChange'];
}

const SEPARATOR = /^[A-Za-z0-9_.-]{1,8}$/;
const PREFIX = /^[A-Za-z0-9_.-]{0,63}$/;

/** What `createProxy` takes, with every rule. */
export const PROXY_OPTIONS: OptionSchema = Object.freeze({
  backends: other('an array of backend specs'),
  maxBackends: positive,
  maxCatalogItems: positive,
  healthIntervalMs: duration(1),
  reconnectDelayMs: duration(1),
  separator: other('1 to 8 of the characters A-Z a-z 0-9 _ . -'),
  authorization: other('an authorization policy'),
  pageSize: COMMON_RULES.pageSize,
  inputTimeoutMs: duration(1),
  maxParkedCalls: positive,
  maxBackendSessions: positive,
  backendSessionIdleMs: duration(1),
  maxInputRounds: COMMON_RULES.maxInputRounds,
  taskManager: instance(TaskManager, 'a TaskManager (createTaskManager())'),
  taskAfterMs: other(`false or an integer number of milliseconds from 0 to ${MAX_TIMER_DELAY}`),
  onHealthChange: fn,
  logger: COMMON_RULES.logger,
  onWarning: fn,
  onSessionChange: fn,
});

/** A number of ms `taskAfterMs` may be. */
const TASK_AFTER = duration(0);

/** `taskAfterMs`: `false`, or integer ms from 0 to the longest delay; undefined when not given. */
function taskAfter(name: string, value: unknown): number | false | undefined {
  if (value === undefined || value === false) return value;
  try {
    checkOption(name, value, TASK_AFTER);
  } catch {
    throw optionError(`${name} must be false or ${describeRule(TASK_AFTER)}, got ${JSON.stringify(value)}`);
  }
  return value as number;
}

/** Validates `createProxy`'s options once; every message names the option and its rule. */
export function resolveSettings(options: ProxyOptions): Settings {
  checkOptions('createProxy', options, PROXY_OPTIONS);
  const separator = options.separator ?? DEFAULT_SEPARATOR;
  if (typeof separator !== 'string' || !SEPARATOR.test(separator)) {
    throw optionError(
      `separator must be 1 to 8 of the characters A-Z a-z 0-9 _ . - (names must match ^[A-Za-z0-9_.-]{1,64}$), got ${JSON.stringify(separator)}`,
    );
  }
  const problem =
    policyProblem('authorization', options.authorization) ?? loggerProblem('logger', options.logger);
  if (problem) throw optionError(problem);
  if (options.backends !== undefined && !Array.isArray(options.backends))
    throw optionError('backends must be an array');
  const tasks = options.taskManager ?? new TaskManager();
  return {
    maxBackends: options.maxBackends ?? DEFAULT_MAX_BACKENDS,
    maxCatalogItems: options.maxCatalogItems ?? DEFAULT_MAX_CATALOG_ITEMS,
    healthIntervalMs: options.healthIntervalMs ?? DEFAULT_HEALTH_INTERVAL_MS,
    reconnectDelayMs: options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS,
    separator,
    authorization: options.authorization,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    inputTimeoutMs: options.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS,
    maxParkedCalls: options.maxParkedCalls ?? DEFAULT_MAX_PARKED_CALLS,
    maxInputRounds: options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS,
    maxBackendSessions: options.maxBackendSessions ?? DEFAULT_MAX_BACKEND_SESSIONS,
    backendSessionIdleMs: options.backendSessionIdleMs ?? DEFAULT_BACKEND_SESSION_IDLE_MS,
    tasks,
    taskAfterMs: taskAfter('taskAfterMs', options.taskAfterMs) ?? tasks.taskAfterMs,
    onHealthChange: options.onHealthChange,
    logger: options.logger,
    onWarning: options.onWarning,
    onSessionChange: options.onSessionChange,
  };
}

/** Validates one backend spec; `where` names it in messages (`backends[2]`, `addBackend`). */
export function checkBackendSpec(where: string, spec: unknown): BackendSpec {
  if (typeof spec !== 'object' || spec === null)
    throw optionError(
      `${where} must be an object { id, target, prefix?, clientOptions?, sessionMode?, maxSessions?, taskAfterMs? }`,
    );
  const typed = spec as Record<string, unknown>;
  const { id } = typed;
  if (typeof id !== 'string' || !BACKEND_ID.test(id) || id.length > MAX_BACKEND_ID_LENGTH) {
    throw optionError(
      `${where}.id must match ${BACKEND_ID.source} (at most ${MAX_BACKEND_ID_LENGTH} characters), got ${JSON.stringify(id)}`,
    );
  }
  const problem = targetProblem(`${where}.target`, typed.target);
  if (problem) throw optionError(problem);
  if (typed.prefix !== undefined && (typeof typed.prefix !== 'string' || !PREFIX.test(typed.prefix))) {
    throw optionError(
      `${where}.prefix must be at most 63 of the characters A-Z a-z 0-9 _ . -, got ${JSON.stringify(typed.prefix)}`,
    );
  }
  if (
    typed.sessionMode !== undefined &&
    typed.sessionMode !== 'per-principal' &&
    typed.sessionMode !== 'shared'
  ) {
    throw optionError(
      `${where}.sessionMode must be 'per-principal' or 'shared', got ${JSON.stringify(typed.sessionMode)}`,
    );
  }
  checkOption(`${where}.maxSessions`, typed.maxSessions, positive);
  taskAfter(`${where}.taskAfterMs`, typed.taskAfterMs);
  if (
    typed.clientOptions !== undefined &&
    (typeof typed.clientOptions !== 'object' || typed.clientOptions === null)
  ) {
    throw optionError(`${where}.clientOptions must be an object (the options of @snodo/client's connect)`);
  }
  return spec as BackendSpec;
}
