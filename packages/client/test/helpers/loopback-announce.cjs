// Pins listen(port) to 127.0.0.1 (the shared preload), then reports the port it got on stderr as
// "LISTENING <port>", so tests can start servers on port 0 and learn where they are.
require('./loopback-listen.cjs');
const net = require('node:net');
const pinned = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') process.stderr.write(`LISTENING ${address.port}\n`);
  });
  return pinned.apply(this, args);
};
