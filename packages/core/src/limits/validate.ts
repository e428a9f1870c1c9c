import { optionError } from '../errors/table.js';

export function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw optionError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

export function nonNegativeInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw optionError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

export function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) {
    throw optionError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** Refuses a key that is not an option; the message lists every option `what` knows. */
export function knownOptions(what: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key))
      throw optionError(`unknown ${what} option "${key}"; known: ${known.join(', ')}`);
  }
}
