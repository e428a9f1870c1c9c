/** Every default limit of the stdio transport, named after what it bounds. */

/** Milliseconds one write may stay blocked (the client not reading stdout) before serving ends. */
export const DEFAULT_WRITE_TIMEOUT = 5_000;
/** Bytes of one input line (newline excluded); a longer line is refused with -32600 before decoding. */
export const DEFAULT_MAX_LINE_BYTES = 2_000_000;
