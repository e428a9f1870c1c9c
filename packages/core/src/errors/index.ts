export { ERROR_TABLE, ErrorCode, type ErrorCodeRow, httpStatusForCode } from './codes.js';
export { ProtocolError, type ProtocolErrorKind } from './protocol-error.js';
export { definitionError, optionError, SnodoError } from './snodo-error.js';
