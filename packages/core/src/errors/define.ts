import { SnodoError, type SnodoErrorOptions } from './snodo-error.js';

/** One local error: its code, what it means, and the HTTP status of the answer it stands for, if any. */
export interface ErrorRow<C extends string = string> {
  readonly code: C;
  readonly message: string;
  readonly status?: number;
}

/** A package's error table: one row per code, keyed by that code. */
export type ErrorTable<C extends string = string> = { readonly [K in C]: ErrorRow<K> };

/**
 * Declares a package's local errors once, one row each: `CODE: [message]` or
 * `CODE: [message, httpStatus]`. Every package builds its table with this; a test per package
 * pins the table (count, codes) and checks its README lists every code.
 */
export function defineErrors<const T extends Record<`SNODO_ERR_${string}`, readonly [string, number?]>>(
  rows: T,
): ErrorTable<keyof T & string> {
  const table: Record<string, ErrorRow> = {};
  for (const [code, [message, status]] of Object.entries(rows) as [string, readonly [string, number?]][]) {
    table[code] = Object.freeze(status === undefined ? { code, message } : { code, message, status });
  }
  return Object.freeze(table) as ErrorTable<keyof T & string>;
}

/** The message of `row`, followed by `detail` when there is one. */
export function rowMessage(row: ErrorRow, detail?: string): string {
  return detail === undefined ? row.message : `${row.message}: ${detail}`;
}

/** A `SnodoError` for `row`: its code, its message (and `detail`), its status. */
export function errorFromRow(row: ErrorRow, detail?: string, options?: { cause?: unknown }): SnodoError {
  const settings: SnodoErrorOptions = row.status === undefined ? {} : { status: row.status };
  if (options !== undefined && 'cause' in options) settings.cause = options.cause;
  return new SnodoError(row.code, rowMessage(row, detail), settings);
}
