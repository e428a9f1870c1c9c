// Public API of @snodo/transport-stdio.

export { redirectConsole } from './console-redirect.js';
export { DEFAULT_MAX_LINE_BYTES, DEFAULT_WRITE_TIMEOUT } from './defaults.js';
export { STDIO_ERRORS, type StdioErrorCode } from './errors.js';
export type { ServeOptions } from './options.js';
export { serve } from './serve.js';
