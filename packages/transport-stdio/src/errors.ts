import { defineErrors, type SnodoError } from '@snodo/core';
import { optionError as coreOptionError, errorFromRow } from '@snodo/core/internal';

/**
 * Every local failure of the stdio transport, declared once. `serve` rejects with a `SnodoError`
 * carrying one of these codes, or core's `SNODO_ERR_INVALID_OPTION` for a bad option (the same
 * code in every package); `test/surface.test.ts` pins the table. (Wire errors a client sees are
 * numeric JSON-RPC codes: see the README.)
 */
export const STDIO_ERRORS = defineErrors({
  SNODO_ERR_WRITE_TIMEOUT: ['The output stayed blocked longer than writeTimeout: the client stopped reading'],
  SNODO_ERR_WRITE_FAILED: ['Writing to the output failed'],
  SNODO_ERR_READ_FAILED: ['Reading from the input failed'],
});

export type StdioErrorCode = keyof typeof STDIO_ERRORS;

/** A `SnodoError` with one of the codes above; `detail` follows the table's message. */
export function stdioError(code: StdioErrorCode, detail?: string, cause?: unknown): SnodoError {
  return errorFromRow(STDIO_ERRORS[code], detail, cause === undefined ? undefined : { cause });
}

/** Core's `SNODO_ERR_INVALID_OPTION` with `detail` (the option and its rule). */
export function optionError(detail: string): SnodoError {
  return coreOptionError(detail);
}
