export type { McpAuth } from './augment.js';
export { mcpBearerAuth } from './auth.js';
export { DEFAULT_BODY_TIMEOUT, DEFAULT_PATH } from './defaults.js';
export type { SnodoFastifyOptions } from './options.js';
export { PLUGIN_NAME, snodoFastify, snodoFastify as default, snodoFastify as snodo } from './plugin.js';
