// Preload for servers without a host option (server-everything's Express app.listen(PORT)):
// binds every listen(port) to 127.0.0.1 and reports the port it got on stderr as "LISTENING <port>".
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') process.stderr.write(`LISTENING ${address.port}\n`);
  });
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    const rest = args.slice(1).filter((arg) => typeof arg !== 'string');
    return listen.call(this, Number(args[0]), '127.0.0.1', ...rest);
  }
  if (
    args[0] &&
    typeof args[0] === 'object' &&
    args[0].path === undefined &&
    args[0].fd === undefined &&
    !args[0]._handle
  ) {
    return listen.call(this, { ...args[0], host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
