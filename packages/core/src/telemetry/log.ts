/**
 * The logger Snodo writes its lifecycle events to, and the one helper that writes to it. No imports:
 * the executor, the hosts and the hooks all use it.
 */

/**
 * A logger with pino's signature (pino, and any logger with object-first `info`/`warn`/`error`
 * methods, fits; `debug` is used when present). Snodo logs lifecycle events through it and never
 * writes to stdout itself, so a stdio server stays clean.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
  debug?(fields: Record<string, unknown>, message?: string): void;
}

/** Logs through `logger` when there is one; a logger that throws never breaks the caller. */
export function log(
  logger: Logger | undefined,
  level: 'info' | 'warn' | 'error' | 'debug',
  fields: Record<string, unknown>,
  message: string,
): void {
  if (!logger) return;
  safely(() => logger[level]?.(fields, message));
}

export function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // A broken logger must not break serving.
  }
}

/** What is wrong with `logger` (undefined: nothing, or it is not set); `name` is how the message names it. */
export function loggerProblem(name: string, logger: unknown): string | undefined {
  if (logger === undefined) return undefined;
  if (typeof logger !== 'object' || logger === null)
    return `${name} must be an object with info, warn and error methods (pino-compatible)`;
  for (const level of ['info', 'warn', 'error'] as const) {
    if (typeof (logger as Record<string, unknown>)[level] !== 'function')
      return `${name}.${level} must be a function (a pino-compatible logger)`;
  }
  return undefined;
}
