/** Defaults the plugin adds to core's (`DEFAULT_MAX_BODY_BYTES` and the rest live in `@snodo/core`). */

/** The MCP route's path inside the scope the plugin is registered in. */
export const DEFAULT_PATH = '/mcp';
/** Milliseconds the whole body may take, from when the plugin starts reading it (408 after): core's, every host's. */
export { DEFAULT_BODY_TIMEOUT } from '@snodo/core';
