const net = require('node:net');
const { TCP, constants } = process.binding('tcp_wrap');
const orig = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  let port, rest;
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    port = Number(args[0]);
    rest = args.slice(1).filter((a) => typeof a !== 'string');
  } else if (
    args[0] &&
    typeof args[0] === 'object' &&
    !(args[0] instanceof TCP) &&
    args[0].path === undefined &&
    args[0].fd === undefined &&
    args[0]._handle === undefined
  ) {
    port = Number(args[0].port || 0);
    rest = args.slice(1);
  }
  if (port === undefined) return orig.apply(this, args);
  const cb = rest.find((a) => typeof a === 'function');
  const handle = new TCP(constants.SERVER);
  const err = handle.bind('127.0.0.1', port);
  if (err) {
    handle.close();
    return orig.call(this, port, '127.0.0.1', ...rest);
  }
  return cb ? orig.call(this, handle, cb) : orig.call(this, handle);
};
