import { connect, StdioTransport } from '@snodo/client';
import { createServer, tool } from '@snodo/core';
import { z } from 'zod';

const runtime = createServer({
  name: 'demo',
  version: '1.0.0',
  tools: [tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text })],
});

const targets = [
  { http: 'http://127.0.0.1:4000/mcp' },
  { stdio: { command: 'node', args: ['server.js', '--stdio'] } },
  { direct: runtime },
  { transport: new StdioTransport({ command: 'node', args: ['server.js', '--stdio'] }) },
];

for (const target of targets) {
  const client = await connect(target, {
    onElicit: () => ({ action: 'accept', content: { name: 'Ada' } }),
  });
  const result = await client.callTool('echo', { text: 'hello' }, { timeout: 5_000, reissue: false });
  console.info(client.protocolVersion, client.serverInfo?.name, result.content);
  await client.close();
}
