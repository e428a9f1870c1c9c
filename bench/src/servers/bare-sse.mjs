// The floor for held streams: plain node:http holding each POST open as an SSE response, writing
// the same acknowledgement our listener writes, and, when the `touch` tool is called, the same
// notifications/resources/updated to every open stream. No MCP validation, no queues, no bounds.
import { serveNodeHttp } from './common.mjs';

const open = new Set();
const event = (message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

serveNodeHttp((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const tag = { 'io.modelcontextprotocol/subscriptionId': message.id };
    if (message.method === 'subscriptions/listen') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(
        event({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: message.params.notifications, _meta: tag },
        }),
      );
      const stream = { res, tag };
      open.add(stream);
      res.on('close', () => open.delete(stream));
      return;
    }
    const uri = message.params?.arguments?.uri;
    for (const stream of open) {
      stream.res.write(
        event({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri, _meta: stream.tag },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        result: { content: [{ type: 'text', text: `touched ${uri}` }] },
      }),
    );
  });
});
