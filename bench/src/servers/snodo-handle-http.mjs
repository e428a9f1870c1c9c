// A diagnostic, not a row: core's HTTP path (`createHttpHandler(runtime).handle`) on the least
// node:http host that can carry it, the body read as bare-jsonrpc-http.mjs reads it and the answer
// written with one writeHead + end. Against Snodo's listener (snodo-http.mjs) it shows what the
// listener adds over core; against bare-jsonrpc-http.mjs, what core adds over parsing.
//   node src/profile.mjs --server snodo-handle
import { importOrUnavailable, serveNodeHttp } from './common.mjs';

const core = await importOrUnavailable('@snodo/core');
const { LazySignal } = await importOrUnavailable('@snodo/core/internal');
const { createEverythingServer } = await importOrUnavailable('everything/server');

const handler = core.createHttpHandler(createEverythingServer());

serveNodeHttp((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const response = await handler.handle({
      method: req.method,
      path: req.url,
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: Buffer.concat(chunks),
      remoteAddress: req.socket.remoteAddress,
      signal: new LazySignal(),
    });
    res.writeHead(response.status, response.headers);
    res.end(response.body);
  });
});
