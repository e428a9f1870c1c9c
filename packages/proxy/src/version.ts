/** This package's version (sent as the backend clients' `clientInfo` and the proxy's `serverInfo`). */
export const PROXY_VERSION = '0.1.0';
