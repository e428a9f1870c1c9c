/** This package's version, sent in the default `clientInfo`. */
export const CLIENT_VERSION = '0.1.0';
