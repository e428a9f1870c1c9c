import { SnodoError } from '@snodo/core';

/**
 * Every local failure of the stdio transport, declared once: code → message. `serve` rejects with
 * a `SnodoError` carrying one of these codes; `test/errors.test.ts` pins the table.
 * (Wire errors a client sees are numeric JSON-RPC codes: see the README.)
 */
export const STDIO_ERROR_MESSAGES = Object.freeze({
  SNODO_ERR_WRITE_TIMEOUT: 'The output stayed blocked longer than writeTimeout: the client stopped reading',
  SNODO_ERR_WRITE_FAILED: 'Writing to the output failed',
  SNODO_ERR_READ_FAILED: 'Reading from the input failed',
  SNODO_ERR_INVALID_OPTION: 'Invalid option',
} as const);

export type StdioErrorCode = keyof typeof STDIO_ERROR_MESSAGES;

/** A `SnodoError` with one of the codes above; `detail` follows the table's message. */
export function stdioError(code: StdioErrorCode, detail?: string, cause?: unknown): SnodoError {
  const message =
    detail === undefined ? STDIO_ERROR_MESSAGES[code] : `${STDIO_ERROR_MESSAGES[code]}: ${detail}`;
  return new SnodoError(code, message, cause === undefined ? undefined : { cause });
}
