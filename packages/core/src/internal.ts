// The seam for sibling @snodo packages (transports, client, proxy). Not a public API: it may change
// in any release. Keep it small.
export { type Selection, selectRevision } from './dispatch/select.js';
export { createSession, withSession } from './dispatch/session.js';
export { MessageStream } from './dispatch/stream.js';
export { classifyMessage } from './jsonrpc/decode.js';
export { encodeCursor, paginate } from './router/pagination.js';
export { compileSchema } from './router/schema.js';
